/**
 * Real Node-RED 5 (cached, on Node 24) for the editors command: a fresh user directory with
 * this package in its node_modules (as the palette manager installs it), the editor on a fixed
 * port, and the demo flow deployed with the emulator's key.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deployFlows, nodeRedBaseSettings } from '../../test/helpers/e2e-node-red';
import { ServerProcess, nodeEnv, unpackInto } from '../../test/helpers/e2e-process';
import { PACKAGE_NAME } from '../demo/paths';
import type { FlowNode } from '../demo/node-red-headless';
import type { Cleanup } from './cleanup';
import type { Runtimes } from './provision';

export interface NodeRedOptions {
	runtimes: Runtimes;
	tarball: string;
	userDir: string;
	/** Working folder of the process: relative `msg.outputFile` names land here. */
	filesDir: string;
	port: number;
	flow: FlowNode[];
	emulator: { apiKey: string; baseUrl: string; asyncUrl: string };
}

export interface RunningNodeRed {
	url: string;
	server: ServerProcess;
}

function settingsFile(port: number): string {
	const settings = nodeRedBaseSettings(port, 'render-demo-credential-secret', 'warn');
	return `module.exports = ${JSON.stringify(settings, null, '\t')};\n`;
}

async function prepareUserDir(options: NodeRedOptions): Promise<void> {
	await unpackInto(options.tarball, join(options.userDir, 'node_modules'), PACKAGE_NAME);
	const manifest = {
		name: 'render-demo-node-red',
		private: true,
		dependencies: { [PACKAGE_NAME]: `file:${options.tarball}` },
	};
	await writeFile(join(options.userDir, 'package.json'), JSON.stringify(manifest, null, 2));
	await writeFile(join(options.userDir, 'settings.js'), settingsFile(options.port));
}

/** The flow with the config node pointed at the emulator and its key, as the editor deploys. */
function wired(options: NodeRedOptions): FlowNode[] {
	return options.flow.map((node) =>
		node.type === 'render-service-config'
			? {
					...node,
					baseUrl: options.emulator.baseUrl,
					asyncUrl: options.emulator.asyncUrl,
					credentials: { apiKey: options.emulator.apiKey },
				}
			: node,
	);
}

export async function startNodeRed(
	options: NodeRedOptions,
	cleanup: Cleanup,
	log: (line: string) => void,
): Promise<RunningNodeRed> {
	await prepareUserDir(options);
	log('Node-RED: starting the editor...');
	const { node, nodeRedJs, nodeDir } = options.runtimes;
	const server = ServerProcess.start(
		node,
		[nodeRedJs, '--userDir', options.userDir, '--settings', join(options.userDir, 'settings.js')],
		{
			env: { ...process.env, ...nodeEnv(nodeDir), NODE_RED_ENABLE_PROJECTS: '' },
			cwd: options.filesDir,
		},
	);
	cleanup.add(() => server.stop());
	const local = `http://127.0.0.1:${options.port}`;
	try {
		await server.waitUntil(
			async () => (await fetch(`${local}/settings`)).ok,
			120_000,
			'Node-RED start',
		);
		await deployFlows(local, wired(options));
	} catch (error) {
		throw new Error(`${String(error)}\n${server.logs()}`);
	}
	return { url: `http://localhost:${options.port}`, server };
}
