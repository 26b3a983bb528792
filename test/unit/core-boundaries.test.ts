import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RenderServiceError } from '../../core/errors';
import { fakeClient, fakeTime, fakeTransport, SECRET } from './core-fakes';

const coreDir = join(__dirname, '../../core');

function sources(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
	});
}

function imports(path: string): string[] {
	return [...readFileSync(path, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
}

describe('core boundaries', () => {
	it('imports neither n8n nor Node-RED, and runtime packages only in the axios transport', () => {
		for (const file of sources(coreDir)) {
			const rel = relative(coreDir, file);
			for (const spec of imports(file)) {
				expect(`${rel}: ${spec}`).not.toMatch(/: (n8n-|node-red|@node-red)/);
				if (!spec.startsWith('.') && !spec.startsWith('node:')) {
					expect(rel).toBe(join('transports', 'axios-transport.ts'));
				}
			}
		}
	});

	it('scrubs the key from service text echoed in errors', async () => {
		const transport = fakeTransport();
		transport.on('GET /models', {
			status: 401,
			body: { error: { code: 'bad_key', message: `Key ${SECRET} is not valid` } },
		});
		const error = await fakeClient(transport, fakeTime())
			.listModels()
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(RenderServiceError);
		const everything = `${String(error)} ${(error as Error).stack} ${JSON.stringify(error)}`;
		expect(everything).not.toContain(SECRET);
		expect((error as Error).message).toContain('[redacted]');
	});
});
