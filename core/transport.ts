/**
 * The seam between the core and each engine. The core never holds the API key: a transport
 * attaches `Authorization: Bearer <key>` when a request says `auth: true`, and never
 * otherwise. A transport never follows redirects and never throws on an HTTP status.
 */
import type { Readable } from 'node:stream';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface TransportRequest {
	method: HttpMethod;
	/** Absolute URL. */
	url: string;
	/** Extra headers (lower-case names). Never `authorization`: use `auth`. */
	headers?: Record<string, string>;
	/** Already-serialised body (the core sends JSON strings). */
	body?: string;
	/** Attach the bearer key. The core sets it false for any origin other than the API's. */
	auth: boolean;
	/** 'text': the whole body as a string; 'stream': a Readable, consumed by the caller. */
	responseType: 'text' | 'stream';
	signal?: AbortSignal;
	/** Per-request limit in ms until response headers arrive. */
	timeoutMs?: number;
	/**
	 * 'text' only: the largest body to read, in bytes. A longer body is abandoned and the
	 * request fails with a TransportError of code `ETOOLARGE`.
	 */
	maxBytes?: number;
}

export interface TransportResponse<B> {
	status: number;
	/** Lower-case header names. */
	headers: Record<string, string | undefined>;
	body: B;
}

/** One server-sent event as parsed from the stream. */
export interface SseMessage {
	/** Event name; 'message' when the stream names none. */
	event: string;
	data: string;
	id?: string;
	/** Reconnection time the server asked for, in ms. */
	retry?: number;
}

/** Items an SSE connection yields: events, and heartbeats (comments / any bytes) for idle detection. */
export type SseItem = { type: 'event'; message: SseMessage } | { type: 'heartbeat' };

export interface SseConnectRequest {
	url: string;
	lastEventId?: string;
	signal: AbortSignal;
}

/**
 * One SSE connection. `status`/`headers` are those of the response; when the status is not
 * 200 or the content type is not text/event-stream, `items` yields nothing. Reconnection is the
 * core's job: a transport opens exactly one connection per call and ends `items` when it drops.
 */
export interface SseConnection {
	status: number;
	headers: Record<string, string | undefined>;
	items: AsyncIterable<SseItem>;
	close(): void;
}

export interface Transport {
	request(req: TransportRequest & { responseType: 'text' }): Promise<TransportResponse<string>>;
	request(req: TransportRequest & { responseType: 'stream' }): Promise<TransportResponse<Readable>>;
	/** Opens an SSE stream with `auth: true` semantics (same origin as the API). */
	openEventStream(req: SseConnectRequest): Promise<SseConnection>;
}

/**
 * Thrown by a transport when no HTTP response was received. `sent` is false only when the
 * request certainly never reached the server (DNS failure, connection refused), which is when
 * a submission may be retried without an idempotency guarantee.
 */
export class TransportError extends Error {
	readonly code: string;
	readonly sent: boolean;
	constructor(message: string, options: { code: string; sent: boolean; cause?: unknown }) {
		super(message);
		this.name = 'TransportError';
		this.code = options.code;
		this.sent = options.sent;
		if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
	}
}

/**
 * Error codes after which a request certainly never reached the server (no connection was
 * made), so even a submission may be sent again. Every other failure counts as "maybe sent".
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
	'ENOTFOUND',
	'EAI_AGAIN',
	'ECONNREFUSED',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EADDRNOTAVAIL',
	'ERR_INVALID_URL',
]);

/** Whether a transport failure with this code may have reached the server. */
export function mayHaveBeenSent(code: string): boolean {
	return !NOT_SENT_CODES.has(code);
}

/** Abortable sleep. Rejects with the signal's reason when aborted. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Epoch milliseconds. */
export type Clock = () => number;
