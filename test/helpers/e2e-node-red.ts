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

export interface NodeRedOptions {
	/** Our packed package, installed into the user directory. */
	packageTarball?: string;
	/** A file-backed default context store, so node context survives a restart. */
	persistentContext?: boolean;
}

/** One Node-RED installation (user directory, port) whose process can be restarted. */
export class NodeRedInstance {
	private server: ServerProcess | undefined;
	private previousLogs = '';
	/** Node-RED's own version, from GET /settings. */
	version = '';

	private constructor(
		private readonly runtime: NodeRedRuntime,
		readonly userDir: string,
		private readonly port: number,
	) {}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	static async start(
		runtime: NodeRedRuntime,
		options: NodeRedOptions = {},
	): Promise<NodeRedInstance> {
		const userDir = await makeTempDir('node-red');
		const instance = new NodeRedInstance(runtime, userDir, await freePort());
		try {
			await prepareUserDir(userDir, instance.port, options);
			await instance.launch();
			return instance;
		} catch (error) {
			await instance.stop();
			throw error;
		}
	}

	private async launch(): Promise<void> {
		const { runtime, userDir } = this;
		this.server = ServerProcess.start(
			runtime.node,
			[runtime.redJs, '--userDir', userDir, '--settings', join(userDir, 'settings.js')],
			{ env: { ...process.env, ...nodeEnv(runtime.nodeDir) }, cwd: userDir },
		);
		// The admin API answers /settings only once the runtime has started.
		await this.server.waitUntil(
			async () => (await fetch(`${this.url}/settings`)).ok,
			120_000,
			'Node-RED start',
		);
		const settings = (await (await fetch(`${this.url}/settings`)).json()) as { version: string };
		this.version = settings.version;
	}

	/** Stops the process (SIGTERM: flows close, context stores flush) and starts it again. */
	async restart(): Promise<void> {
		await this.server?.stop();
		this.previousLogs += this.server?.logs() ?? '';
		await this.launch();
	}

	logs(): string {
		return this.previousLogs + (this.server?.logs() ?? '');
	}

	/** Replaces all flows (a full deploy) through the admin API. */
	async deploy(flows: FlowNode[]): Promise<void> {
		await deployFlows(this.url, flows, () => `\n${this.logs()}`);
	}

	/** Clicks an inject node's button (the editor's POST /inject/:id). */
	async inject(nodeId: string): Promise<void> {
		// A deploy answers before the new flows have started: 404 until the node exists.
		let last = 'no answer';
		await waitFor(
			async () => {
				const response = await fetch(`${this.url}/inject/${nodeId}`, { method: 'POST' });
				last = `HTTP ${response.status}`;
				return response.ok || undefined;
			},
			30_000,
			`inject node ${nodeId} to accept a click`,
		).catch((error: Error) => {
			const state = this.server?.running ? 'running' : 'exited';
			throw new Error(`${error.message} (last: ${last}, Node-RED ${state})\n${this.logs()}`);
		});
	}

	/** A node's context as the editor's Context sidebar reads it (raw JSON text). */
	async nodeContext(nodeId: string): Promise<string> {
		const response = await fetch(`${this.url}/context/node/${nodeId}`);
		return await response.text();
	}

	/**
	 * Node types whose code loaded, from GET /nodes. Node-RED lists a set's types from its HTML
	 * even when the JS failed to load; such a set carries `err` and is left out here.
	 */
	async nodeTypes(): Promise<string[]> {
		const response = await fetch(`${this.url}/nodes`, { headers: { Accept: 'application/json' } });
		const sets = (await response.json()) as Array<{
			types: string[];
			enabled: boolean;
			err?: unknown;
		}>;
		return sets.filter((set) => set.enabled && !set.err).flatMap((set) => set.types);
	}

	/** Stops the process group and removes the user directory. */
	async stop(): Promise<void> {
		await this.server?.stop();
		await removeDir(this.userDir);
	}
}

/** Starts Node-RED with a fresh user directory and a free port. */
export async function startNodeRed(
	runtime: NodeRedRuntime,
	options: NodeRedOptions = {},
): Promise<NodeRedInstance> {
	return await NodeRedInstance.start(runtime, options);
}

async function prepareUserDir(
	userDir: string,
	port: number,
	options: NodeRedOptions,
): Promise<void> {
	const tarball = options.packageTarball;
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
	await writeFile(join(userDir, 'settings.js'), settingsFile(port, options.persistentContext));
}

/**
 * The settings every real Node-RED we start shares (the e2e tests and the editors command): on
 * 127.0.0.1 at `port`, flows in flows.json, and offline: no palette installs, no update checks,
 * no telemetry prompts.
 */
export function nodeRedBaseSettings(
	port: number,
	credentialSecret: string,
	logLevel: string,
): Record<string, unknown> {
	return {
		uiHost: '127.0.0.1',
		uiPort: port,
		flowFile: 'flows.json',
		credentialSecret,
		externalModules: { palette: { allowInstall: false }, modules: { allowInstall: false } },
		diagnostics: { enabled: false },
		telemetry: { enabled: false },
		editorTheme: { tours: false, palette: { catalogues: [] } },
		logging: { console: { level: logLevel, metrics: false, audit: false } },
	};
}

/**
 * Replaces all flows of the Node-RED at `url` (a full deploy through the admin API), as the
 * editor's Deploy button does; a refusal throws with Node-RED's answer and `context()`.
 */
export async function deployFlows(
	url: string,
	flows: FlowNode[],
	context: () => string = () => '',
): Promise<void> {
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
		throw new Error(`Node-RED deploy: ${response.status} ${await response.text()}${context()}`);
	}
}

function settingsFile(port: number, persistentContext = false): string {
	const settings: Record<string, unknown> = {
		...nodeRedBaseSettings(port, 'render-e2e-credential-secret', 'info'),
		httpAdminRoot: '/',
		httpNodeRoot: '/api',
	};
	if (persistentContext) {
		// Flushed every second and on close, so a restart finds what the nodes stored.
		settings.contextStorage = {
			default: { module: 'localfilesystem', config: { flushInterval: 1 } },
		};
	}
	return `module.exports = ${JSON.stringify(settings, null, '\t')};\n`;
}
