/**
 * Runs the demo's Node-RED flow headless in an embedded Node-RED (the node-red devDependency,
 * 4.x on the Node that runs npm): a temp user directory with this package in its node_modules
 * (linked to the repository, so Node-RED loads dist/ through package.json's `node-red` block,
 * as after `npm install`), no HTTP server, the flow deployed with the emulator's key.
 */
import { createServer } from 'node:http';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { EmulatorAccess } from './n8n-headless';
import { PACKAGE_NAME, REPO_ROOT } from './paths';
import type { DemoRow } from './report';

export type FlowNode = { id: string; type: string } & Record<string, unknown>;

interface InjectProp {
	p: string;
	v?: string;
	vt?: string;
}

interface CompleteEvent {
	msg: Record<string, unknown>;
	error?: unknown;
	node: { id: string };
}

/** The parts of `require('node-red')` the demo uses. */
interface EmbeddedRed {
	init(server: unknown, settings: Record<string, unknown>): void;
	start(): Promise<void>;
	stop(): Promise<void>;
	hooks: {
		add(name: string, fn: (event: CompleteEvent) => void): void;
		remove(name: string): void;
	};
}

export async function loadFlow(file: string): Promise<FlowNode[]> {
	return JSON.parse(await readFile(file, 'utf8')) as FlowNode[];
}

/**
 * The flow as the demo deploys it: the config node points at the emulator, every Inject fires
 * once on deploy, and relative `msg.outputFile` names land in `outDir`.
 */
export function prepareFlow(
	flow: FlowNode[],
	emulator: EmulatorAccess,
	outDir: string,
): FlowNode[] {
	return flow.map((node) => {
		if (node.type === 'render-service-config') {
			return { ...node, baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl };
		}
		if (node.type !== 'inject') return node;
		const props = (node.props as InjectProp[]).map((prop) =>
			prop.p === 'outputFile' && prop.v && !isAbsolute(prop.v)
				? { ...prop, v: join(outDir, prop.v) }
				: prop,
		);
		return { ...node, props, once: true };
	});
}

/**
 * A user directory as `npm install` in it would leave it, with the flow and its credentials
 * already saved. `credentialSecret: false` keeps them in plain JSON: this folder holds only the
 * emulator's demo key and is deleted afterwards.
 */
async function userDirWithPackage(flow: FlowNode[], apiKey: string): Promise<string> {
	const userDir = await mkdtemp(join(tmpdir(), 'render-demo-node-red-'));
	const link = join(userDir, 'node_modules', ...PACKAGE_NAME.split('/'));
	await mkdir(dirname(link), { recursive: true });
	await symlink(REPO_ROOT, link, 'dir');
	await writeFile(
		join(userDir, 'package.json'),
		JSON.stringify({ name: 'render-demo', private: true, dependencies: { [PACKAGE_NAME]: '*' } }),
	);
	const credentials: Record<string, { apiKey: string }> = {};
	for (const node of flow)
		if (node.type === 'render-service-config') credentials[node.id] = { apiKey };
	await writeFile(join(userDir, 'flows.json'), JSON.stringify(flow));
	await writeFile(join(userDir, 'flows_cred.json'), JSON.stringify(credentials));
	return userDir;
}

function settings(userDir: string): Record<string, unknown> {
	return {
		userDir,
		httpAdminRoot: false,
		httpNodeRoot: false,
		flowFile: 'flows.json',
		credentialSecret: false,
		externalModules: { palette: { allowInstall: false }, modules: { allowInstall: false } },
		diagnostics: { enabled: false },
		telemetry: { enabled: false },
		// Quiet: the demo prints its own table; errors still show.
		logging: { console: { level: 'error', metrics: false, audit: false } },
	};
}

/** Deploys the flow, waits until every Inject's message has left render-generate, stops. */
export async function runNodeRedFlow(
	flow: FlowNode[],
	emulator: EmulatorAccess,
	outDir: string,
	timeoutMs = 60_000,
): Promise<DemoRow[]> {
	const deployed = prepareFlow(flow, emulator, outDir);
	const generators = new Set(deployed.filter((n) => n.type === 'render-generate').map((n) => n.id));
	const expected = deployed.filter((n) => n.type === 'inject').length;
	if (generators.size === 0) throw new Error('The flow has no render nodes');

	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const RED = require('node-red') as EmbeddedRed;
	const userDir = await userDirWithPackage(deployed, emulator.apiKey);
	const rows: DemoRow[] = [];
	let finish: (error?: Error) => void = () => {};
	const finished = new Promise<void>((resolve, reject) => {
		finish = (error) => (error ? reject(error) : resolve());
	});
	const timer = setTimeout(
		() => finish(new Error(`Node-RED produced ${rows.length} of ${expected} files in time`)),
		timeoutMs,
	);
	try {
		RED.init(createServer(), settings(userDir));
		RED.hooks.add('onComplete.renderDemo', (event) => {
			if (!generators.has(event.node.id)) return;
			if (event.error) return finish(new Error(`render-generate failed: ${String(event.error)}`));
			rows.push(rowOf(event.msg));
			if (rows.length === expected) finish();
		});
		// Starts the saved flow; its Inject nodes fire once, right after.
		await RED.start();
		await finished;
		return rows;
	} finally {
		clearTimeout(timer);
		RED.hooks.remove('onComplete.renderDemo');
		await RED.stop().catch(() => undefined);
		await rm(userDir, { recursive: true, force: true });
	}
}

function rowOf(msg: Record<string, unknown>): DemoRow {
	const job = msg.job as {
		via?: string;
		waitedMs?: number;
		request?: { family?: string; model?: string; format?: string; prompt?: string };
	};
	const request = job.request ?? {};
	return {
		engine: 'Node-RED (embedded)',
		model: `${request.family}/${request.model}`,
		format: String(request.format),
		waitMode: String(job.via),
		seconds: Number(job.waitedMs) / 1000,
		file: String(msg.payload),
		prompt: String(request.prompt ?? ''),
	};
}
