/**
 * The slice of Node-RED's runtime API our nodes use. Node-RED ships no types of its own and
 * @types/node-red lags behind 4.x, so we declare what we rely on and nothing more.
 */
import type { EventEmitter } from 'node:events';

export interface NodeMessage {
	_msgid?: string;
	payload?: unknown;
	topic?: string;
	[key: string]: unknown;
}

export interface NodeStatus {
	fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
	shape?: 'ring' | 'dot';
	text?: string;
}

/** One message, or per output a message, an array of messages or null. */
export type Outgoing = NodeMessage | Array<NodeMessage | NodeMessage[] | null>;
export type SendFn = (msg: Outgoing) => void;
export type DoneFn = (err?: Error) => void;

export interface ContextStore {
	get(
		key: string,
		store: string | undefined,
		cb: (err: Error | null, value: unknown) => void,
	): void;
	set(
		key: string,
		value: unknown,
		store: string | undefined,
		cb: (err: Error | null) => void,
	): void;
}

export interface NodeContext extends ContextStore {
	flow: ContextStore;
	global: ContextStore;
}

export interface RedNode extends EventEmitter {
	id: string;
	type: string;
	name?: string;
	credentials?: Record<string, string | undefined>;
	status(status: NodeStatus | Record<string, never>): void;
	send(msg: Outgoing): void;
	error(err: unknown, msg?: NodeMessage): void;
	warn(message: unknown): void;
	log(message: unknown): void;
	debug(message: unknown): void;
	context(): NodeContext;
	on(event: 'input', listener: (msg: NodeMessage, send: SendFn, done: DoneFn) => void): this;
	on(event: 'close', listener: (removed: boolean, done: () => void) => void): this;
	on(event: string, listener: (...args: never[]) => void): this;
}

/** Node properties as saved by the editor (`defaults`) plus id/type/name. */
export interface NodeDef {
	id: string;
	type: string;
	name?: string;
	[key: string]: unknown;
}

type Handler = (req: AdminRequest, res: AdminResponse, next?: () => void) => void;

export interface AdminRequest {
	body?: unknown;
	params?: Record<string, string>;
	query?: Record<string, unknown>;
}

export interface AdminResponse {
	status(code: number): AdminResponse;
	json(body: unknown): void;
	type(contentType: string): AdminResponse;
	send(body: string): void;
}

export interface NodeAPI {
	nodes: {
		createNode(node: object, def: NodeDef): void;
		registerType(
			type: string,
			ctor: (this: RedNode, def: NodeDef) => void,
			options?: { credentials?: Record<string, { type: 'text' | 'password' }>; settings?: object },
		): void;
		getNode(id: string): RedNode | null;
		getCredentials(id: string): Record<string, string | undefined> | undefined;
	};
	httpAdmin: {
		post(path: string, ...handlers: Handler[]): void;
		get(path: string, ...handlers: Handler[]): void;
	};
	auth: { needsPermission(permission: string): Handler };
	settings: Record<string, unknown>;
	_: (key: string, params?: Record<string, unknown>) => string;
}
