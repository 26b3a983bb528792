/** The parts of node-red-node-test-helper (which ships no types) that our specs use. */
declare module 'node-red-node-test-helper' {
	import type { EventEmitter } from 'node:events';

	type NodeModule = (RED: unknown) => void | Promise<void>;

	interface TestNode extends EventEmitter {
		id: string;
		type: string;
		receive(msg: Record<string, unknown>): void;
		status: { args: unknown[][] } & ((...args: unknown[]) => void);
		credentials?: Record<string, string>;
	}

	interface SupertestLike {
		post(path: string): SupertestRequest;
		get(path: string): SupertestRequest;
	}
	interface SupertestRequest extends PromiseLike<{ status: number; body: unknown; text: string }> {
		send(body: unknown): SupertestRequest;
		set(name: string, value: string): SupertestRequest;
	}

	interface Helper {
		init(runtimePath?: string, userSettings?: Record<string, unknown>): void;
		settings(userSettings: Record<string, unknown>): Record<string, unknown>;
		load(
			nodes: NodeModule | NodeModule[],
			flow: Array<Record<string, unknown>>,
			credentials?: Record<string, Record<string, string>>,
		): Promise<void>;
		setFlows(
			flow: Array<Record<string, unknown>>,
			type?: 'full' | 'flows' | 'nodes',
			credentials?: Record<string, Record<string, string>>,
		): Promise<void>;
		unload(): Promise<void>;
		getNode(id: string): TestNode;
		request(): SupertestLike;
		/** Spy on Node-RED's log: one call per log line (errors, warnings, info). */
		log(): { args: unknown[][] };
		startServer(): Promise<void>;
		stopServer(): Promise<void>;
		_context: { load(): Promise<void>; close(): Promise<void> };
	}

	const helper: Helper;
	export = helper;
}
