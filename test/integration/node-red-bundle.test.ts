/**
 * The published form of the Node-RED nodes: esbuild bundles with the core, axios and
 * eventsource inlined, loaded into Node-RED 4 and run against the emulator.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '../../emulator';
import { configNode, helper, load, nextMessage, startEmulator } from '../helpers/node-red-harness';

jest.setTimeout(60_000);

const NAMES = ['render-service-config', 'render-models', 'render-generate', 'render-job'];
const root = join(__dirname, '../..');
let outdir: string;
let emulator: RunningEmulator;

beforeAll(async () => {
	outdir = mkdtempSync(join(tmpdir(), 'nr-bundle-'));
	execFileSync(process.execPath, [join(root, 'scripts/bundle-node-red.mjs'), '--outdir', outdir], {
		cwd: root,
	});
	emulator = await startEmulator();
});
afterAll(async () => {
	await emulator.close();
	rmSync(outdir, { recursive: true, force: true });
});
afterEach(() => helper.unload());

it('writes one file per node that requires nothing but Node.js built-ins', () => {
	const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
	for (const name of NAMES) {
		const code = readFileSync(join(outdir, `${name}.js`), 'utf8');
		const required = [...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!);
		expect(required.filter((r) => !builtins.has(r))).toEqual([]);
	}
});

it('puts the editor HTML, help, strings and icon beside the bundles', () => {
	for (const name of NAMES) {
		expect(existsSync(join(outdir, `${name}.html`))).toBe(true);
		expect(existsSync(join(outdir, 'locales/en-US', `${name}.json`))).toBe(true);
		expect(existsSync(join(outdir, 'locales/en-US', `${name}.html`))).toBe(true);
	}
	expect(existsSync(join(outdir, 'icons/render-service.svg'))).toBe(true);
});

it('generates an image in Node-RED from the bundles', async () => {
	await load(
		[
			configNode(emulator),
			{
				id: 'gen',
				type: 'render-generate',
				config: 'cfg',
				family: 'flux',
				model: 'schnell',
				wires: [['out']],
			},
			{ id: 'out', type: 'helper' },
		],
		emulator.apiKey,
		{ bundleDir: outdir },
	);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 'bundled' });
	const msg = await output;
	expect((msg.payload as Buffer).equals(emulator.expectedResult(msg.jobId as string)!.data)).toBe(
		true,
	);
});
