/**
 * Starts everything `npm run editors` shows: the emulator (in this process), real n8n and real
 * Node-RED 5 (each in its own process group, on Node 24), wired to the emulator. `cleanup.run()`
 * ends them by PID and removes their temp folders. Also used by `npm run screenshots`.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '../../emulator';
import { packPackage } from '../../test/helpers/e2e-process';
import { loadFlow } from '../demo/node-red-headless';
import { DIST, NODE_RED_FLOW_FILE, REPO_ROOT } from '../demo/paths';
import type { Cleanup } from './cleanup';
import { OWNER, startN8n, type RunningN8n } from './n8n';
import { startNodeRed, type RunningNodeRed } from './node-red';
import { provisionRuntimes } from './provision';

export interface EditorsOptions {
	n8nPort?: number;
	nodeRedPort?: number;
	/** Catalogue port; the queue and the CDN take the next two. */
	emulatorPort?: number;
	log?: (line: string) => void;
}

export interface RunningEditors {
	emulator: RunningEmulator;
	n8n: RunningN8n;
	nodeRed: RunningNodeRed;
	login: { email: string; password: string };
	filesDir: string;
}

function startEmulator(port: number): Promise<RunningEmulator> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { createEmulator } = require(`${DIST}/emulator`) as typeof import('../../emulator');
	return createEmulator({ port });
}

/** Starts it all; whatever has started is registered on `cleanup` at once, even on failure. */
export async function startEditors(
	cleanup: Cleanup,
	options: EditorsOptions = {},
): Promise<RunningEditors> {
	const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
	const runtimes = await provisionRuntimes(log);
	const temp = await mkdtemp(join(tmpdir(), 'render-editors-'));
	cleanup.add(() => rm(temp, { recursive: true, force: true }));
	log('Packing the package as npm would publish it...');
	const tarball = await packPackage(join(temp, 'pack'));
	const emulator = await startEmulator(options.emulatorPort ?? 8080);
	cleanup.add(() => emulator.close());
	const access = {
		apiKey: emulator.apiKey,
		baseUrl: emulator.baseUrl,
		asyncUrl: emulator.asyncUrl,
	};
	const filesDir = join(REPO_ROOT, 'demo-output', 'editors');
	await mkdir(join(filesDir, 'node-red'), { recursive: true });
	const nodeRed = await startNodeRed(
		{
			runtimes,
			tarball,
			userDir: join(temp, 'node-red'),
			filesDir: join(filesDir, 'node-red'),
			port: options.nodeRedPort ?? 1880,
			flow: await loadFlow(NODE_RED_FLOW_FILE),
			emulator: access,
		},
		cleanup,
		log,
	);
	const n8n = await startN8n(
		{
			runtimes,
			tarball,
			userFolder: join(temp, 'n8n'),
			filesDir: join(filesDir, 'n8n'),
			port: options.n8nPort ?? 5678,
			emulator: access,
		},
		cleanup,
		log,
	);
	const login = { email: OWNER.email, password: OWNER.password };
	return { emulator, n8n, nodeRed, login, filesDir };
}
