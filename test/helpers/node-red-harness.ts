/**
 * Shared setup of the Node-RED specs: our four node modules (TypeScript sources, or a bundle
 * directory), node-red-node-test-helper with Node-RED 4, and the emulator over real HTTP.
 */
import { join } from 'node:path';
import helper from 'node-red-node-test-helper';
import { createEmulator } from '../../emulator';
import type { EmulatorOptions, RunningEmulator } from '../../emulator';

export { helper };

export type Flow = Array<Record<string, unknown>>;
export type Msg = Record<string, unknown>;
type NodeModule = (RED: unknown) => void;

const NODE_NAMES = ['render-service-config', 'render-models', 'render-generate', 'render-job'];

/** The node modules, from the sources (default) or from a directory of built bundles. */
export function nodeModules(bundleDir?: string): NodeModule[] {
	const dir = bundleDir ?? join(__dirname, '../../node-red');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return NODE_NAMES.map((name) => require(join(dir, name)) as NodeModule);
}

/** Fast job timing so a whole spec file stays within seconds. */
export function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	return createEmulator({ port: 0, queueMs: 50, runMs: 300, heartbeatMs: 1000, ...options });
}

export const CONFIG_ID = 'cfg';

export function configNode(emulator: RunningEmulator, id = CONFIG_ID): Msg {
	return {
		id,
		type: 'render-service-config',
		name: 'emulator',
		baseUrl: emulator.baseUrl,
		asyncUrl: emulator.asyncUrl,
	};
}

export function credentials(
	apiKey: string,
	id = CONFIG_ID,
): Record<string, Record<string, string>> {
	return { [id]: { apiKey } };
}

/**
 * A render-generate node `gen` on the config node `cfg`, waiting (Auto, 20 s, then fail) for
 * a 512 flux/schnell image as a buffer, wired to `out`; `props` override any of it.
 */
export function generateNode(props: Record<string, unknown> = {}): Msg {
	return {
		id: 'gen',
		type: 'render-generate',
		config: CONFIG_ID,
		family: 'flux',
		model: 'schnell',
		format: '512',
		mode: 'wait',
		waitMode: 'auto',
		timeout: 20,
		onTimeout: 'fail',
		output: 'buffer',
		wires: [['out']],
		...props,
	};
}

/** A Catch node wired to a helper node `caught`, to see what reaches Catch. */
export function catchNodes(): Flow {
	return [
		{ id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
		{ id: 'caught', type: 'helper' },
	];
}

export async function load(
	flow: Flow,
	apiKey: string,
	options: { bundleDir?: string; before?: () => Promise<void> } = {},
): Promise<void> {
	const modules = nodeModules(options.bundleDir);
	// A pseudo module that runs first: the test helper calls modules between initialising the
	// runtime and starting the flows, the only moment a context store can be loaded.
	const before: NodeModule[] = options.before ? [options.before as unknown as NodeModule] : [];
	await helper.load([...before, ...modules], onTab(flow), credentials(apiKey));
}

export const TAB_ID = 'tab';

/** Puts the flow's nodes (not config nodes) on one tab: Catch nodes only see their own tab. */
export function onTab(flow: Flow): Flow {
	if (flow.some((n) => n.type === 'tab')) return flow;
	const nodes = flow.map((n) =>
		n.type === 'render-service-config' || 'z' in n ? n : { ...n, z: TAB_ID },
	);
	return [{ id: TAB_ID, type: 'tab', label: 'test' }, ...nodes];
}

/** Resolves with the next message a node receives, or rejects after `ms`. */
export function nextMessage(nodeId: string, ms = 10_000): Promise<Msg> {
	const node = helper.getNode(nodeId);
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`no message at ${nodeId} within ${ms} ms`)),
			ms,
		);
		node.once('input', (msg: Msg) => {
			clearTimeout(timer);
			resolve(msg);
		});
	});
}

/** Collects the next `count` messages a node receives. */
export function messages(nodeId: string, count: number, ms = 10_000): Promise<Msg[]> {
	const node = helper.getNode(nodeId);
	const seen: Msg[] = [];
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`${seen.length}/${count} messages at ${nodeId} within ${ms} ms`)),
			ms,
		);
		const onInput = (msg: Msg): void => {
			seen.push(msg);
			if (seen.length < count) return;
			clearTimeout(timer);
			node.off('input', onInput);
			resolve(seen);
		};
		node.on('input', onInput);
	});
}

export interface StatusRecord {
	fill?: string;
	shape?: string;
	text?: string;
}

/** Every status a node shows from now on, in order. */
export function recordStatuses(nodeId: string): StatusRecord[] {
	const seen: StatusRecord[] = [];
	helper.getNode(nodeId).on('call:status', (call: { args: unknown[] }) => {
		seen.push((call.args[0] ?? {}) as StatusRecord);
	});
	return seen;
}

/** Every `node.error` call of a node from now on. */
export function recordErrors(nodeId: string): unknown[][] {
	const seen: unknown[][] = [];
	helper.getNode(nodeId).on('call:error', (call: { args: unknown[] }) => seen.push(call.args));
	return seen;
}

export { until } from './until';

export function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

/** Serialises a message for a secret scan; Buffers become their length. */
export function textOf(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) => {
		if (v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer') return '[buffer]';
		if (v instanceof Error) return { message: v.message, stack: v.stack };
		return v;
	});
}

/**
 * Stops the flows like a Node-RED shutdown: unlike `helper.unload()`, which also wipes every
 * context, the context stores keep their data; the stores are then closed (flushed).
 */
export async function stopKeepingContext(): Promise<void> {
	const context = helper._context as unknown as { clean: (...args: unknown[]) => Promise<void> };
	const clean = context.clean;
	context.clean = () => Promise.resolve();
	try {
		await helper.unload();
	} finally {
		context.clean = clean;
	}
	await helper._context.close();
}
