/**
 * Real n8n 2.x for end-to-end tests: the pinned n8n from the e2e cache on Node 24, with a temp
 * N8N_USER_FOLDER per instance, our packed package installed where n8n loads community
 * packages from (~/.n8n/nodes/node_modules), headless CLI commands (import, publish,
 * `execute --id --rawOutput`) and `n8n start` for triggers. Every process is stopped by its PID.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
	PACKAGE_NAME,
	ServerProcess,
	freePort,
	makeTempDir,
	nodeEnv,
	provisionNode24,
	removeDir,
	runCommand,
	runProvisionScript,
	unpackInto,
} from './e2e-process';

export interface N8nRuntime {
	node: string;
	nodeDir: string;
	/** The install folder (its node_modules holds n8n and its sqlite3 build). */
	home: string;
	/** n8n's CLI script (node_modules/n8n/bin/n8n). */
	cli: string;
}

/** n8n (pinned in scripts/e2e/install-n8n.sh) on Node 24; installs on first use. */
export async function provisionN8n(): Promise<N8nRuntime> {
	const node24 = await provisionNode24();
	const dir = await runProvisionScript('install-n8n.sh');
	return {
		node: node24.node,
		nodeDir: node24.dir,
		home: dir,
		cli: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/** A credential as `n8n import:credentials` takes it; n8n encrypts a plain `data` object. */
export interface N8nCredential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** The item shape of n8n's run data, enough for assertions. */
export interface N8nItem {
	json: Record<string, unknown>;
	binary?: Record<string, N8nBinary>;
	pairedItem?: { item: number } | Array<{ item: number }> | number;
}

export interface N8nBinary {
	mimeType: string;
	fileName?: string;
	fileSize?: string;
	/** Base64 in the default (in-memory) mode; absent or a marker when stored by id. */
	data: string;
	/** e.g. `filesystem-v2:workflows/…` when n8n keeps binary data on disk. */
	id?: string;
}

/** The JSON `n8n execute --rawOutput` prints: an IRun. */
export interface N8nRun {
	finished?: boolean;
	status?: string;
	data: {
		resultData: {
			error?: { message?: string };
			runData: Record<string, Array<{ data?: { main: Array<N8nItem[] | null> } }>>;
		};
	};
}

const CLI_TIMEOUT_MS = 5 * 60_000;

export class N8nInstance {
	private server: ServerProcess | undefined;

	private constructor(
		private readonly runtime: N8nRuntime,
		/** The temp N8N_USER_FOLDER (n8n keeps its data in <folder>/.n8n). */
		readonly userFolder: string,
		/** A folder nodes of the workflows may read and write (N8N_RESTRICT_FILE_ACCESS_TO). */
		readonly filesDir: string,
		readonly port: number,
	) {}

	/** A fresh instance folder with our packed package installed, if a tarball is given. */
	static async create(
		runtime: N8nRuntime,
		options: { packageTarball?: string } = {},
	): Promise<N8nInstance> {
		const userFolder = await makeTempDir('n8n');
		const instance = new N8nInstance(
			runtime,
			userFolder,
			join(userFolder, 'files'),
			await freePort(),
		);
		await mkdir(instance.filesDir, { recursive: true });
		if (options.packageTarball) await instance.installPackage(options.packageTarball);
		return instance;
	}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	/** Where community packages live: what "Install community node" would have written. */
	private async installPackage(tarball: string): Promise<void> {
		const nodesDir = join(this.userFolder, '.n8n', 'nodes');
		await unpackInto(tarball, join(nodesDir, 'node_modules'), PACKAGE_NAME);
		const manifest = {
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: `file:${tarball}` },
		};
		await writeFile(join(nodesDir, 'package.json'), JSON.stringify(manifest, null, 2));
	}

	/** The environment of one n8n process, logging to `logFile`. */
	async env(logFile: string): Promise<NodeJS.ProcessEnv> {
		return {
			...(await n8nProcessEnv({
				nodeDir: this.runtime.nodeDir,
				userFolder: this.userFolder,
				encryptionKey: 'render-e2e-encryption-key',
				port: this.port,
				filesDir: this.filesDir,
			})),
			N8N_HOST: '127.0.0.1',
			N8N_BINARY_DATA_STORAGE_PATH: join(this.userFolder, 'binary-data'),
			// JSON lines in a file per command: `execute --rawOutput` logs the run there too.
			N8N_LOG_OUTPUT: 'file',
			N8N_LOG_LEVEL: 'info',
			N8N_LOG_FILE_LOCATION: logFile,
		};
	}

	private logSeq = 0;
	private readonly logFiles: string[] = [];

	private logFileFor(label: string): string {
		const file = join(this.userFolder, 'logs', `${++this.logSeq}-${label}.log`);
		this.logFiles.push(file);
		return file;
	}

	/** Every command's log, oldest first, for failure messages. */
	async logs(): Promise<string> {
		const parts: string[] = [];
		for (const file of this.logFiles) {
			const text = await readFile(file, 'utf8').catch(() => '');
			parts.push(`--- ${file} ---\n${text.slice(-50_000)}`);
		}
		if (this.server) parts.push(`--- n8n start output ---\n${this.server.logs()}`);
		return parts.join('\n');
	}

	/** Runs one n8n CLI command to completion; throws with its output and logs if it fails. */
	async cli(
		args: string[],
		timeoutMs = CLI_TIMEOUT_MS,
	): Promise<{ stdout: string; logFile: string }> {
		const logFile = this.logFileFor(args[0]?.replace(/\W/g, '-') ?? 'cli');
		const result = await runCommand(this.runtime.node, [this.runtime.cli, ...args], {
			env: await this.env(logFile),
			cwd: this.userFolder,
			timeoutMs,
		});
		if (result.code !== 0) {
			throw new Error(
				`n8n ${args.join(' ')} exited with ${result.code}\n${result.stdout}\n${result.stderr}\n${await this.logs()}`,
			);
		}
		return { stdout: result.stdout, logFile };
	}

	async importCredentials(credentials: N8nCredential[]): Promise<void> {
		const file = join(this.userFolder, 'import-credentials.json');
		await writeFile(file, JSON.stringify(credentials));
		await this.cli(['import:credentials', `--input=${file}`]);
	}

	/** Imports workflows (each with its own `id`) in one CLI run. */
	async importWorkflows(workflows: object[]): Promise<void> {
		const file = join(this.userFolder, 'import-workflows.json');
		await writeFile(file, JSON.stringify(workflows));
		await this.cli(['import:workflow', `--input=${file}`]);
	}

	/** n8n 2.x activates a workflow by publishing it; takes effect at the next start. */
	async publishWorkflow(id: string): Promise<void> {
		await this.cli(['publish:workflow', `--id=${id}`]);
	}

	/** `n8n execute --id --rawOutput` in its own process; returns the parsed run. */
	async execute(workflowId: string): Promise<N8nRun> {
		const { logFile } = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput']);
		// The command prints the run through n8n's logger, so it is one entry of the JSON log.
		for (const line of (await readFile(logFile, 'utf8')).split('\n').reverse()) {
			const message = parseLogLine(line)?.message;
			if (message?.startsWith('{') && message.includes('"resultData"')) {
				return JSON.parse(message) as N8nRun;
			}
		}
		throw new Error(`n8n execute logged no run data\n${await this.logs()}`);
	}

	/** `n8n start` (published workflows become active); resolves once the instance is ready. */
	async start(): Promise<void> {
		if (this.server?.running) throw new Error('n8n is already running');
		const logFile = this.logFileFor('start');
		this.server = ServerProcess.start(this.runtime.node, [this.runtime.cli, 'start'], {
			env: await this.env(logFile),
			cwd: this.userFolder,
		});
		const server = this.server;
		await server.waitUntil(
			async () =>
				(await fetch(`${this.url}/healthz/readiness`)).ok && (await activationDone(logFile)),
			5 * 60_000,
			'n8n start',
		);
	}

	async stop(): Promise<void> {
		await this.server?.stop(20_000);
		this.server = undefined;
	}

	/**
	 * Finished executions of a workflow, read from n8n's own database (sqlite) with n8n's own
	 * sqlite3 and flatted modules: what the Executions list of the editor would show.
	 */
	async executions(workflowId: string): Promise<N8nExecution[]> {
		const database = join(this.userFolder, '.n8n', 'database.sqlite');
		const result = await runCommand(
			this.runtime.node,
			['-e', READ_EXECUTIONS, database, workflowId],
			{
				env: { ...process.env, ...nodeEnv(this.runtime.nodeDir) },
				cwd: this.runtime.home,
				timeoutMs: 60_000,
			},
		);
		if (result.code !== 0) throw new Error(`reading executions failed: ${result.stderr}`);
		return JSON.parse(result.stdout) as N8nExecution[];
	}

	/** Stops the server if running and removes the instance folder. */
	async dispose(): Promise<void> {
		await this.stop();
		await removeDir(this.userFolder);
	}

	/** The bytes of a binary property, whether n8n kept it inline or on disk. */
	async binaryBytes(binary: N8nBinary): Promise<Buffer> {
		if (!binary.id) return Buffer.from(binary.data, 'base64');
		const [mode, key] = binary.id.split(/:(.*)/s);
		if (mode !== 'filesystem-v2' && mode !== 'filesystem') {
			throw new Error(`binary data mode ${mode} is not readable by the harness`);
		}
		return readFile(join(this.userFolder, 'binary-data', key ?? ''));
	}
}

export interface N8nExecution {
	id: string;
	status: string;
	mode: string;
	data: N8nRun['data'];
}

/** Runs with n8n's Node in n8n's install folder; prints finished executions as JSON. */
const READ_EXECUTIONS = `
const sqlite3 = require('sqlite3');
const { parse } = require('flatted');
const [database, workflowId] = process.argv.slice(1);
const db = new sqlite3.Database(database, sqlite3.OPEN_READONLY);
db.configure('busyTimeout', 10000);
db.all(
	"SELECT e.id, e.status, e.mode, d.data FROM execution_entity e JOIN execution_data d ON d.executionId = e.id WHERE e.workflowId = ? AND e.status IN ('success', 'error', 'crashed') ORDER BY e.id",
	[workflowId],
	(error, rows) => {
		if (error) { console.error(error.message); process.exit(1); }
		const out = rows.map((row) => ({ id: String(row.id), status: row.status, mode: row.mode, data: parse(row.data) }));
		process.stdout.write(JSON.stringify(out));
		db.close();
	},
);
`;

/** Output items of a node's first run, first output. */
export function nodeOutput(run: N8nRun, nodeName: string): N8nItem[] {
	const runs = run.data.resultData.runData[nodeName];
	const items = runs?.[0]?.data?.main[0];
	if (!items) {
		const known = Object.keys(run.data.resultData.runData).join(', ');
		throw new Error(`node "${nodeName}" produced no output (nodes that ran: ${known})`);
	}
	return items;
}

/** n8n logs this once it has activated the published workflows and serves the editor. */
async function activationDone(logFile: string): Promise<boolean> {
	return (await readFile(logFile, 'utf8').catch(() => '')).includes('Editor is now accessible');
}

function parseLogLine(line: string): { message?: string } | undefined {
	try {
		return JSON.parse(line) as { message?: string };
	} catch {
		return undefined;
	}
}

export interface N8nProcessEnvOptions {
	/** Folder of the provisioned Node, put first on PATH. */
	nodeDir: string;
	userFolder: string;
	encryptionKey: string;
	port: number;
	/** Folder file nodes may read and write (N8N_RESTRICT_FILE_ACCESS_TO). */
	filesDir: string;
}

/**
 * What every real n8n process we start runs with (the e2e tests and the editors command):
 * its own user folder, port and task-broker port, on 127.0.0.1, offline and quiet.
 */
export async function n8nProcessEnv(options: N8nProcessEnvOptions): Promise<NodeJS.ProcessEnv> {
	return {
		...process.env,
		...nodeEnv(options.nodeDir),
		N8N_USER_FOLDER: options.userFolder,
		N8N_ENCRYPTION_KEY: options.encryptionKey,
		N8N_PORT: String(options.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		// Offline and quiet: no telemetry, update checks, templates or registry lookups.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		N8N_COMMUNITY_PACKAGES_REINSTALL_MISSING: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_RUNNERS_MODE: 'internal',
		// Every n8n process starts a task broker (5679 by default): one free port each, so
		// `execute` can run beside `start` and beside other instances.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_RESTRICT_FILE_ACCESS_TO: options.filesDir,
		DB_SQLITE_POOL_SIZE: '2',
		NODE_ENV: 'production',
	};
}
