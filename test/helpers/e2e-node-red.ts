/**
 * Real Node-RED for end-to-end tests: Node-RED 5 on Node 24 (both from the e2e cache) or the
 * Node-RED 4 devDependency on the Node running jest. Each instance gets a temp user directory,
 * a free port, optionally our packed package in its node_modules, and is stopped by its PID.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
	PACKAGE_NAME,
	REPO_ROOT,
	ServerProcess,
	freePort,
	makeTempDir,
	nodeEnv,
	provisionNode24,
	removeDir,
	runProvisionScript,
	unpackInto,
	waitFor,
} from './e2e-process';

export interface NodeRedRuntime {
	/** Node binary that runs Node-RED. */
	node: string;
	/** Node-RED's red.js. */
	redJs: string;
	/** Folder of a provisioned Node, put first on PATH; undefined for the jest Node. */
	nodeDir?: string;
}

/** Node-RED 5 (pinned in scripts/e2e/install-node-red.sh) on Node 24; installs on first use. */
export async function provisionNodeRed5(): Promise<NodeRedRuntime> {
	const node24 = await provisionNode24();
	const dir = await runProvisionScript('install-node-red.sh');
	return {
		node: node24.node,
		nodeDir: node24.dir,
		redJs: join(dir, 'node_modules', 'node-red', 'red.js'),
	};
}

/** The Node-RED 4 devDependency on the Node that runs jest (Node 20 in CI). */
export function nodeRed4(): NodeRedRuntime {
	return { node: process.execPath, redJs: join(REPO_ROOT, 'node_modules', 'node-red', 'red.js') };
}

/** A node of a flow as the admin API takes it; `credentials` is written encrypted by Node-RED. */
export type FlowNode = { id: string; type: string } & Record<string, unknown>;

export interface NodeRedInstance {
	url: string;
	userDir: string;
	/** Node-RED's own version, from GET /settings. */
	version: string;
	/** Replaces all flows (a full deploy) through the admin API. */
	deploy(flows: FlowNode[]): Promise<void>;
	/** Clicks an inject node's button (the editor's POST /inject/:id). */
	inject(nodeId: string): Promise<void>;
	/** Node types the runtime has registered, from GET /nodes. */
	nodeTypes(): Promise<string[]>;
	logs(): string;
	/** Stops the process group and removes the user directory. */
	stop(): Promise<void>;
}

export async function startNodeRed(
	runtime: NodeRedRuntime,
	options: { packageTarball?: string } = {},
): Promise<NodeRedInstance> {
	const userDir = await makeTempDir('node-red');
	let server: ServerProcess | undefined;
	try {
		const port = await freePort();
		await prepareUserDir(userDir, port, options.packageTarball);
		server = ServerProcess.start(
			runtime.node,
			[runtime.redJs, '--userDir', userDir, '--settings', join(userDir, 'settings.js')],
			{
				env: { ...process.env, ...nodeEnv(runtime.nodeDir), NODE_RED_ENABLE_PROJECTS: '' },
				cwd: userDir,
			},
		);
		const url = `http://127.0.0.1:${port}`;
		// The admin API answers /settings only once the runtime has started.
		await server.waitUntil(
			async () => (await fetch(`${url}/settings`)).ok,
			120_000,
			'Node-RED start',
		);
		const settings = (await (await fetch(`${url}/settings`)).json()) as { version: string };
		return makeInstance(server, url, userDir, settings.version);
	} catch (error) {
		await server?.stop();
		await removeDir(userDir);
		throw error;
	}
}

function makeInstance(
	server: ServerProcess,
	url: string,
	userDir: string,
	version: string,
): NodeRedInstance {
	return {
		url,
		userDir,
		version,
		logs: () => server.logs(),
		async deploy(flows) {
			const response = await fetch(`${url}/flows`, {
				method: 'POST',
				headers: {
					'Content-Type': 'application/json',
					'Node-RED-API-Version': 'v2',
					'Node-RED-Deployment-Type': 'full',
				},
				body: JSON.stringify({ flows }),
			});
			if (!response.ok) {
				throw new Error(
					`deploy failed: ${response.status} ${await response.text()}\n${server.logs()}`,
				);
			}
		},
		async inject(nodeId) {
			// A deploy answers before the new flows have started: 404 until the node exists.
			await waitFor(
				async () => (await fetch(`${url}/inject/${nodeId}`, { method: 'POST' })).ok || undefined,
				30_000,
				`inject node ${nodeId} to accept a click`,
			);
		},
		async nodeTypes() {
			const response = await fetch(`${url}/nodes`, { headers: { Accept: 'application/json' } });
			const sets = (await response.json()) as Array<{ types: string[]; enabled: boolean }>;
			return sets.filter((set) => set.enabled).flatMap((set) => set.types);
		},
		async stop() {
			await server.stop();
			await removeDir(userDir);
		},
	};
}

async function prepareUserDir(userDir: string, port: number, tarball?: string): Promise<void> {
	const dependencies: Record<string, string> = {};
	if (tarball) {
		// What `npm install <tarball>` does for a package without dependencies, offline and fast.
		await unpackInto(tarball, join(userDir, 'node_modules'), PACKAGE_NAME);
		dependencies[PACKAGE_NAME] = `file:${tarball}`;
	}
	await writeFile(
		join(userDir, 'package.json'),
		JSON.stringify({ name: 'node-red-e2e-user-dir', private: true, dependencies }, null, 2),
	);
	await writeFile(join(userDir, 'settings.js'), settingsFile(port));
}

function settingsFile(port: number): string {
	const settings = {
		uiHost: '127.0.0.1',
		uiPort: port,
		httpAdminRoot: '/',
		httpNodeRoot: '/api',
		flowFile: 'flows.json',
		credentialSecret: 'render-e2e-credential-secret',
		// No palette installs, no update checks, no telemetry prompts: the test runs offline.
		externalModules: { palette: { allowInstall: false }, modules: { allowInstall: false } },
		diagnostics: { enabled: false },
		telemetry: { enabled: false },
		editorTheme: { tours: false, palette: { catalogues: [] } },
		logging: { console: { level: 'info', metrics: false, audit: false } },
	};
	return `module.exports = ${JSON.stringify(settings, null, '\t')};\n`;
}
