/**
 * The Node-RED / standalone transport: axios with redirects off and every status returned,
 * and SSE through the `eventsource` package with a custom fetch (also axios) that adds the
 * bearer key and `Last-Event-ID`. It is the only place that holds the API key; the key is
 * sent only when a request says `auth: true` and never appears in a thrown error.
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { EventSource, type FetchLike, type FetchLikeResponse } from 'eventsource';
import type { Readable } from 'node:stream';
import { scrub } from '../errors';
import { linkSignals } from '../sleep';
import {
	TransportError,
	mayHaveBeenSent,
	type SseConnection,
	type SseItem,
	type Transport,
	type TransportRequest,
} from '../transport';
import { ALL_JOB_EVENTS } from '../sse-event-names';
import { ItemQueue } from './item-queue';

export interface AxiosTransportOptions {
	apiKey: string;
	/** Default limit until response headers arrive, in ms, when a request sets none. Default 30 000. */
	timeoutMs?: number;
	/** Bring your own instance (proxy, agents). Redirect and status options are overridden. */
	axiosInstance?: AxiosInstance;
	/** Default "@render-service/n8n-nodes-render". */
	userAgent?: string;
}

/**
 * Event names we listen for: EventSource delivers only the names someone listens to. 'error'
 * is EventSource's own connection-error event, so a job event of that name cannot be told
 * apart here; the job's `failed` status (or polling) still ends the wait.
 */
const EVENT_NAMES = ALL_JOB_EVENTS.filter((name) => name !== 'error');

export function createAxiosTransport(options: AxiosTransportOptions): Transport {
	const http = options.axiosInstance ?? axios.create();
	const secrets = [options.apiKey, `Bearer ${options.apiKey}`];
	const defaultTimeout = options.timeoutMs ?? 30_000;
	const userAgent = options.userAgent ?? '@render-service/n8n-nodes-render';

	const send = async (req: TransportRequest, accept?: string): Promise<AxiosResponse> => {
		const headers: Record<string, string> = { 'user-agent': userAgent };
		for (const [name, value] of Object.entries(req.headers ?? {})) {
			if (name.toLowerCase() !== 'authorization') headers[name.toLowerCase()] = value;
		}
		if (accept && !headers.accept) headers.accept = accept;
		if (req.auth) headers.authorization = `Bearer ${options.apiKey}`;
		const link = linkSignals(req.signal);
		const timeoutMs = req.timeoutMs ?? defaultTimeout;
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			link.controller.abort(new Error('timeout'));
		}, timeoutMs);
		try {
			return await http.request({
				method: req.method,
				url: req.url,
				headers,
				data: req.body,
				maxRedirects: 0,
				validateStatus: () => true,
				responseType: req.responseType === 'stream' ? 'stream' : 'text',
				responseEncoding: 'utf8',
				...(req.responseType === 'text' && req.maxBytes !== undefined
					? { maxContentLength: req.maxBytes }
					: {}),
				transformResponse: [(data: unknown) => data],
				signal: link.signal,
			});
		} catch (error) {
			throw toTransportError(error, secrets, timedOut, req.signal);
		} finally {
			clearTimeout(timer);
			// The caller's signal keeps governing a streamed body; our timer no longer does.
			if (req.responseType === 'text') link.dispose();
		}
	};

	const request = (async (req: TransportRequest) => {
		const res = await send(req);
		return {
			status: res.status,
			headers: normalizeHeaders(res.headers),
			body: req.responseType === 'stream' ? (res.data as Readable) : String(res.data ?? ''),
		};
	}) as Transport['request'];

	const openEventStream: Transport['openEventStream'] = async ({ url, lastEventId, signal }) => {
		const queue = new ItemQueue<SseItem>();
		let body: Readable | undefined;
		let resolveHead!: (head: {
			status: number;
			headers: Record<string, string | undefined>;
		}) => void;
		let rejectHead!: (error: unknown) => void;
		const head = new Promise<{ status: number; headers: Record<string, string | undefined> }>(
			(res, rej) => {
				resolveHead = res;
				rejectHead = rej;
			},
		);
		let calls = 0;
		const fetchLike: FetchLike = async (input, init) => {
			// One connection per call: the core does the reconnecting, with its own backoff.
			if (calls++ > 0) throw new Error('closed');
			const link = linkSignals(signal, init.signal ?? undefined);
			const headers: Record<string, string> = { 'cache-control': 'no-store' };
			if (lastEventId) headers['last-event-id'] = lastEventId;
			let res: AxiosResponse;
			try {
				res = await send(
					{
						method: 'GET',
						url: String(input),
						headers,
						auth: true,
						responseType: 'stream',
						signal: link.signal,
					},
					'text/event-stream',
				);
			} catch (error) {
				rejectHead(error);
				throw error;
			}
			body = res.data as Readable;
			const normalized = normalizeHeaders(res.headers);
			resolveHead({ status: res.status, headers: normalized });
			return heartbeatResponse(String(input), res.status, normalized, body, queue);
		};
		const source = new EventSource(url, { fetch: fetchLike });
		const close = () => {
			source.close();
			body?.destroy();
			queue.end();
		};
		for (const name of EVENT_NAMES) {
			source.addEventListener(name, (ev: MessageEvent) => queue.push(toItem(name, ev)));
		}
		source.addEventListener('error', (ev: Event) => {
			// A server-sent `event: error` arrives as a MessageEvent; anything else is the connection failing.
			if (ev instanceof MessageEvent) queue.push(toItem('error', ev));
			else close();
		});
		const onAbort = () => close();
		signal.addEventListener('abort', onAbort, { once: true });
		try {
			const { status, headers } = await head;
			const connection: SseConnection = {
				status,
				headers,
				items: queue,
				close: () => {
					signal.removeEventListener('abort', onAbort);
					close();
				},
			};
			return connection;
		} catch (error) {
			close();
			throw error;
		}
	};

	return { request, openEventStream };
}

function toItem(name: string, ev: MessageEvent): SseItem {
	const message: { event: string; data: string; id?: string } = {
		event: name,
		data: typeof ev.data === 'string' ? ev.data : String(ev.data ?? ''),
	};
	if (ev.lastEventId) message.id = ev.lastEventId;
	return { type: 'event', message };
}

/** A fetch-like response whose reader reports a heartbeat for every chunk that arrives. */
function heartbeatResponse(
	url: string,
	status: number,
	headers: Record<string, string | undefined>,
	body: Readable,
	queue: ItemQueue<SseItem>,
): FetchLikeResponse {
	const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
	return {
		url,
		status,
		redirected: false,
		headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
		body: {
			getReader: () => ({
				read: async () => {
					const next = await iterator.next();
					if (next.done) return { done: true as const, value: undefined };
					queue.push({ type: 'heartbeat' });
					return { done: false as const, value: new Uint8Array(next.value) };
				},
				cancel: async () => {
					body.destroy();
				},
			}),
		},
	};
}

export function normalizeHeaders(headers: unknown): Record<string, string | undefined> {
	const out: Record<string, string | undefined> = {};
	const source =
		headers && typeof (headers as { toJSON?: unknown }).toJSON === 'function'
			? ((headers as { toJSON(): Record<string, unknown> }).toJSON() as Record<string, unknown>)
			: ((headers ?? {}) as Record<string, unknown>);
	for (const [name, value] of Object.entries(source)) {
		if (value === undefined || value === null) continue;
		out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

function toTransportError(
	error: unknown,
	secrets: string[],
	timedOut: boolean,
	callerSignal: AbortSignal | undefined,
): TransportError {
	const code = (error as { code?: unknown })?.code;
	const codeText = typeof code === 'string' ? code : 'unknown';
	if (callerSignal?.aborted)
		return new TransportError('The request was cancelled.', { code: 'aborted', sent: true });
	if (timedOut) return new TransportError('No response in time.', { code: 'timeout', sent: true });
	if (/^maxContentLength size of \d+ exceeded$/.test(error instanceof Error ? error.message : '')) {
		return new TransportError('The reply was too large.', { code: 'ETOOLARGE', sent: true });
	}
	const raw = error instanceof Error ? error.message : String(error);
	// No `cause`: axios errors hold the request config, including the Authorization header.
	return new TransportError(scrub(raw || codeText, secrets), {
		code: codeText,
		sent: mayHaveBeenSent(codeText),
	});
}
