/**
 * `npm run demo` end to end, as a child process the way a newcomer runs it: the emulator, the
 * n8n workflow in n8n's engine and the Node-RED flow in an embedded Node-RED, writing files.
 * Needs dist/ (`npm run build`), like the e2e tests.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

jest.setTimeout(120_000);

let outDir: string;
let stdout: string;

beforeAll(async () => {
	outDir = await mkdtemp(join(tmpdir(), 'render-demo-test-'));
	const args = ['scripts/demo/launch.mjs', 'scripts/demo/main.ts', '--no-build', '--out', outDir];
	// Short jobs keep the test quick; the demo's own defaults are the emulator's.
	args.push('--queue-ms', '50', '--run-ms', '200');
	({ stdout } = await run(process.execPath, args, { cwd: ROOT, timeout: 110_000 }));
});

afterAll(async () => {
	await rm(outDir, { recursive: true, force: true });
});

async function files(): Promise<string[]> {
	return (await readdir(outDir)).sort();
}

test('writes one PNG per prompt from each engine', async () => {
	const names = await files();
	expect(names.filter((n) => n.startsWith('n8n-') && n.endsWith('.png'))).toHaveLength(3);
	expect(names.filter((n) => n.startsWith('node-red-') && n.endsWith('.png'))).toHaveLength(3);
	for (const name of names) {
		const data = await readFile(join(outDir, name));
		expect(data.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
	}
});

test('every prompt gives a different picture', async () => {
	const hashes = new Set<string>();
	for (const name of await files()) {
		hashes.add(
			createHash('sha256')
				.update(await readFile(join(outDir, name)))
				.digest('hex'),
		);
	}
	expect(hashes.size).toBe((await files()).length);
});

test('prints a table row per file with engine, model, format and how it waited', async () => {
	const rows = stdout.split('\n').filter((line) => /\.png\s*$/.test(line));
	expect(rows).toHaveLength(6);
	expect(
		rows.filter((r) => r.startsWith('n8n') && /flux\/schnell\s+512\s+sse/.test(r)),
	).toHaveLength(3);
	expect(
		rows.filter((r) => r.startsWith('Node-RED') && /sdxl\/base\s+landscape\s+poll/.test(r)),
	).toHaveLength(3);
});
