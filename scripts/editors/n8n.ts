/**
 * Real n8n (the cached 2.41.1 on Node 24) for the editors command: a fresh user folder with
 * this package installed where "Install community node" puts it, a credential pointing at the
 * emulator, the example workflows imported, the owner account created, the editor served.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { n8nProcessEnv } from '../../test/helpers/e2e-n8n';
import { ServerProcess, unpackInto } from '../../test/helpers/e2e-process';
import { N8N_WORKFLOW_FILE, PACKAGE_NAME, REPO_ROOT } from '../demo/paths';
import type { Cleanup } from './cleanup';
import type { Runtimes } from './provision';
import { runTool } from './run-tool';

/** The same credential the examples in examples/n8n/ refer to. */
export const CREDENTIAL = { id: 'rsEmulatorCred01', name: 'Render Service Emulator' };

/** The account the editors command creates; printed for the person who opens the editor. */
export const OWNER = {
	email: 'demo@render-service.example',
	firstName: 'Render',
	lastName: 'Demo',
	password: 'RenderDemo1',
};

export interface N8nOptions {
	runtimes: Runtimes;
	tarball: string;
	userFolder: string;
	/** Folder file nodes may read and write (N8N_RESTRICT_FILE_ACCESS_TO). */
	filesDir: string;
	port: number;
	emulator: { apiKey: string; baseUrl: string; asyncUrl: string };
}

export interface RunningN8n {
	url: string;
	/** Imported workflows, the demo's first. */
	workflows: Array<{ id: string; name: string }>;
	server: ServerProcess;
}

type Workflow = { id: string; name: string; nodes: Array<Record<string, unknown>> } & Record<
	string,
	unknown
>;

async function env(options: N8nOptions): Promise<NodeJS.ProcessEnv> {
	return {
		...(await n8nProcessEnv({
			nodeDir: options.runtimes.nodeDir,
			userFolder: options.userFolder,
			encryptionKey: 'render-demo-encryption-key',
			port: options.port,
			filesDir: options.filesDir,
		})),
		N8N_HOST: 'localhost',
		N8N_EDITOR_BASE_URL: `http://localhost:${options.port}`,
		// Plain http on localhost: the login cookie must not require https.
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: 'warn',
	};
}

async function installPackage(options: N8nOptions): Promise<void> {
	const nodesDir = join(options.userFolder, '.n8n', 'nodes');
	await unpackInto(options.tarball, join(nodesDir, 'node_modules'), PACKAGE_NAME);
	const manifest = {
		name: 'installed-nodes',
		private: true,
		dependencies: { [PACKAGE_NAME]: `file:${options.tarball}` },
	};
	await writeFile(join(nodesDir, 'package.json'), JSON.stringify(manifest, null, 2));
}

/** The demo workflow, then the workflows of examples/n8n/, all using the emulator credential. */
async function workflowsToImport(filesDir: string): Promise<Workflow[]> {
	const files = [N8N_WORKFLOW_FILE];
	const examples = join(REPO_ROOT, 'examples', 'n8n');
	const names = await readdir(examples).catch(() => [] as string[]);
	files.push(
		...names
			.filter((n) => n.endsWith('.json'))
			.sort()
			.map((n) => join(examples, n)),
	);
	const workflows: Workflow[] = [];
	for (const file of files) {
		const text = (await readFile(file, 'utf8')).replaceAll('__FILES_DIR__', filesDir);
		const workflow = JSON.parse(text) as Workflow;
		// credentials.emulator.json and anything else that is not a workflow.
		if (!Array.isArray(workflow.nodes)) continue;
		for (const node of workflow.nodes) {
			const credentials = node.credentials as Record<string, unknown> | undefined;
			if (credentials?.renderServiceApi) credentials.renderServiceApi = { ...CREDENTIAL };
		}
		workflows.push(workflow);
	}
	return workflows;
}

async function cli(options: N8nOptions, cleanup: Cleanup, args: string[]): Promise<void> {
	const result = await runTool(
		options.runtimes.node,
		[options.runtimes.n8nCli, ...args],
		{ env: await env(options), cwd: options.userFolder, timeoutMs: 5 * 60_000 },
		cleanup,
	);
	if (result.code !== 0)
		throw new Error(`n8n ${args[0]} failed (${result.code}):\n${result.output}`);
}

async function importAll(options: N8nOptions, cleanup: Cleanup): Promise<Workflow[]> {
	const credentialsFile = join(options.userFolder, 'import-credentials.json');
	const credential = { ...CREDENTIAL, type: 'renderServiceApi', data: { ...options.emulator } };
	await writeFile(credentialsFile, JSON.stringify([credential]));
	await cli(options, cleanup, ['import:credentials', `--input=${credentialsFile}`]);
	const workflows = await workflowsToImport(options.filesDir);
	const workflowsFile = join(options.userFolder, 'import-workflows.json');
	await writeFile(workflowsFile, JSON.stringify(workflows));
	await cli(options, cleanup, ['import:workflow', `--input=${workflowsFile}`]);
	return workflows;
}

/** The first start shows a sign-up form for the owner; the demo fills it in through the API. */
async function setupOwner(url: string): Promise<void> {
	const response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(OWNER),
	});
	if (!response.ok) throw new Error(`n8n owner setup: ${response.status} ${await response.text()}`);
}

export async function startN8n(
	options: N8nOptions,
	cleanup: Cleanup,
	log: (line: string) => void,
): Promise<RunningN8n> {
	await mkdir(options.filesDir, { recursive: true });
	await installPackage(options);
	log('n8n: importing the emulator credential and the example workflows...');
	const workflows = await importAll(options, cleanup);
	log('n8n: starting the editor...');
	const server = ServerProcess.start(options.runtimes.node, [options.runtimes.n8nCli, 'start'], {
		env: await env(options),
		cwd: options.userFolder,
	});
	cleanup.add(() => server.stop(20_000));
	const local = `http://127.0.0.1:${options.port}`;
	try {
		await server.waitUntil(
			async () => (await fetch(`${local}/healthz/readiness`)).ok,
			5 * 60_000,
			'n8n start',
		);
		await setupOwner(local);
	} catch (error) {
		throw new Error(`${String(error)}\n${server.logs()}`);
	}
	return {
		url: `http://localhost:${options.port}`,
		server,
		workflows: workflows.map(({ id, name }) => ({ id, name })),
	};
}
