/**
 * Process plumbing shared by the n8n and Node-RED end-to-end harnesses: provisioning through
 * the scripts in scripts/e2e, child processes in their own process group (so a stop kills
 * the engine and everything it spawned, by PID), free ports, temp folders, and packing the
 * built package once per test file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = join(__dirname, '..', '..');
/** The npm name of this repository's package, as the engines install it. */
export const PACKAGE_NAME = '@render-service/n8n-nodes-render';
const SCRIPTS = join(REPO_ROOT, 'scripts', 'e2e');

/** First-run installs take minutes; give beforeAll this much. */
export const PROVISION_TIMEOUT_MS = 20 * 60_000;

/** Runs scripts/e2e/<name> and returns the folder it prints (its last stdout line). */
export async function runProvisionScript(
	name: string,
	env: NodeJS.ProcessEnv = {},
): Promise<string> {
	const { stdout } = await execFileAsync('bash', [join(SCRIPTS, name)], {
		env: { ...process.env, ...env },
		maxBuffer: 16 * 1024 * 1024,
		timeout: PROVISION_TIMEOUT_MS,
	});
	const folder = stdout.trim().split('\n').pop() ?? '';
	if (!existsSync(folder)) throw new Error(`${name} printed no folder: ${stdout}`);
	return folder;
}

/** Node 24 from the registry package, with its headers for native addons. */
export async function provisionNode24(): Promise<{ dir: string; node: string }> {
	const dir = await runProvisionScript('provision-node24.sh');
	return { dir, node: join(dir, 'bin', 'node') };
}

/** Env that puts a Node on PATH first and points native builds at its headers. */
export function nodeEnv(nodeDir: string | undefined): NodeJS.ProcessEnv {
	if (!nodeDir) return {};
	return {
		PATH: `${join(nodeDir, 'bin')}:${process.env.PATH ?? ''}`,
		npm_config_nodedir: nodeDir,
	};
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

export async function makeTempDir(prefix: string): Promise<string> {
	return mkdtemp(join(tmpdir(), `render-e2e-${prefix}-`));
}

/** Removes a temp folder, unless RENDER_E2E_KEEP=1 asks to keep it for a post-mortem. */
export async function removeDir(dir: string | undefined): Promise<void> {
	if (!dir) return;
	if (process.env.RENDER_E2E_KEEP === '1') {
		process.stderr.write(`RENDER_E2E_KEEP=1: keeping ${dir}\n`);
		return;
	}
	await rm(dir, { recursive: true, force: true });
}

/**
 * `npm pack` of the repository as it is (dist/ must be built: `npm run build`), so the engines
 * load exactly what would be published. Returns the tarball path.
 */
export async function packPackage(into: string): Promise<string> {
	if (!existsSync(join(REPO_ROOT, 'dist'))) {
		throw new Error('dist/ is missing: run `npm run build` before the e2e tests');
	}
	await mkdir(into, { recursive: true });
	await execFileAsync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', into], {
		cwd: REPO_ROOT,
		maxBuffer: 16 * 1024 * 1024,
	});
	const tarball = (await readdir(into)).find((name) => name.endsWith('.tgz'));
	if (!tarball) throw new Error(`npm pack wrote no tarball into ${into}`);
	await expectEntryPoints(join(into, tarball));
	return join(into, tarball);
}

/**
 * Every file the engines load (package.json's `n8n` and `node-red` blocks, Node-RED's editor
 * HTML beside each node) must be in the tarball. A missing one means dist/ was packed while a
 * build was rewriting it; say so instead of letting an engine fail obscurely.
 */
async function expectEntryPoints(tarball: string): Promise<void> {
	const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
		n8n?: { nodes?: string[]; credentials?: string[] };
		'node-red'?: { nodes?: Record<string, string> };
	};
	const nodeRed = Object.values(manifest['node-red']?.nodes ?? {});
	const wanted = [
		...(manifest.n8n?.nodes ?? []),
		...(manifest.n8n?.credentials ?? []),
		...nodeRed,
		...nodeRed.map((file) => file.replace(/\.js$/, '.html')),
	];
	const { stdout } = await execFileAsync('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
	const packed = new Set(stdout.split('\n').map((line) => line.replace(/^package\//, '')));
	const missing = wanted.filter((file) => !packed.has(file));
	if (missing.length > 0) {
		throw new Error(
			`the packed package lacks ${missing.join(', ')}: run \`npm run build\` (and let it finish)`,
		);
	}
}

/** Unpacks a package tarball as <nodeModules>/<name>, like `npm install` of a dependency-free package. */
export async function unpackInto(
	tarball: string,
	nodeModules: string,
	name: string,
): Promise<void> {
	const target = join(nodeModules, ...name.split('/'));
	await mkdir(target, { recursive: true });
	await execFileAsync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}

export interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to completion in its own process group; kills the group on timeout. */
export async function runCommand(
	command: string,
	args: string[],
	options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<RunResult> {
	const child = spawnGroup(command, args, options);
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), options.timeoutMs);
	const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
	const code = await new Promise<number | null>((resolve) => {
		child.on('exit', (exitCode) => resolve(exitCode));
	});
	clearTimeout(timer);
	// Helpers it spawned (task runners) would hold the pipes open: end the whole group.
	killGroup(child, 'SIGKILL', true);
	await closed;
	return { code, stdout, stderr };
}

/** Groups still running; killed if the test process exits without stopping them. */
const liveGroups = new Set<ChildProcess>();
process.once('exit', () => {
	for (const child of liveGroups) killGroup(child, 'SIGKILL', true);
});

function spawnGroup(
	command: string,
	args: string[],
	options: { env: NodeJS.ProcessEnv; cwd?: string },
): ChildProcess {
	// detached: a process group of its own, so stopping kills the engine and its task runners.
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	liveGroups.add(child);
	child.once('close', () => liveGroups.delete(child));
	return child;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals, evenAfterExit = false): void {
	if (child.pid === undefined) return;
	if (!evenAfterExit && (child.exitCode !== null || child.signalCode !== null)) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}

/** A long-running server process (n8n start, Node-RED) with its output kept for diagnostics. */
export class ServerProcess {
	private output = '';
	private readonly exited: Promise<void>;

	private constructor(private readonly child: ChildProcess) {
		const keep = (chunk: Buffer) => {
			// Keep the tail only: enough to explain a failure, bounded memory.
			this.output = (this.output + chunk.toString()).slice(-200_000);
		};
		child.stdout?.on('data', keep);
		child.stderr?.on('data', keep);
		this.exited = new Promise((resolve) => child.on('close', () => resolve()));
	}

	static start(
		command: string,
		args: string[],
		options: { env: NodeJS.ProcessEnv; cwd?: string },
	): ServerProcess {
		return new ServerProcess(spawnGroup(command, args, options));
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	logs(): string {
		return this.output;
	}

	/** Waits until `ready()` holds, failing early with the logs if the process dies. */
	async waitUntil(ready: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (!this.running) throw new Error(`${what}: process exited.\n${this.logs()}`);
			if (await ready().catch(() => false)) return;
			await sleep(250);
		}
		throw new Error(`${what}: not ready after ${timeoutMs} ms.\n${this.logs()}`);
	}

	/** SIGTERM to the whole group, SIGKILL if it is still there after `graceMs`. */
	async stop(graceMs = 10_000): Promise<void> {
		if (!this.running) {
			killGroup(this.child, 'SIGKILL', true);
			return;
		}
		killGroup(this.child, 'SIGTERM');
		const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), graceMs);
		await this.exited;
		clearTimeout(timer);
		// Children left in the group (task runners) must not outlive the test.
		killGroup(this.child, 'SIGKILL', true);
	}
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value, or throws after `timeoutMs`. */
export async function waitFor<T>(
	check: () => Promise<T | undefined>,
	timeoutMs: number,
	what: string,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const value = await check().catch(() => undefined);
		if (value !== undefined) return value;
		await sleep(200);
	}
	throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}
