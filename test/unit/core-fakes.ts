/** Fakes for the core's unit tests: a scripted transport and a virtual clock with sleep. */
import { Readable } from 'node:stream';
import { createRenderClient } from '../../core/client';
import type { RenderClient, RenderClientOptions } from '../../core/api';
import type {
	Sleep,
	SseConnection,
	SseConnectRequest,
	Transport,
	TransportRequest,
	TransportResponse,
} from '../../core/transport';
import type { Model } from '../../core/types';

export type Reply =
	| { status: number; headers?: Record<string, string>; body?: unknown }
	| Error
	| ((req: TransportRequest) => Reply);

export interface FakeTransport extends Transport {
	requests: TransportRequest[];
	sse: SseConnectRequest[];
	/** Replies used in order for requests matching `match` (method + path prefix). */
	on(match: string, ...replies: Reply[]): void;
	onSse(...connections: (() => SseConnection)[]): void;
}

/** `match` is "GET /jobs/" style: method and path prefix. */
export function fakeTransport(): FakeTransport {
	const routes: { match: string; replies: Reply[] }[] = [];
	const sseQueue: (() => SseConnection)[] = [];
	const requests: TransportRequest[] = [];
	const sse: SseConnectRequest[] = [];
	const transport: FakeTransport = {
		requests,
		sse,
		on(match, ...replies) {
			routes.push({ match, replies });
		},
		onSse(...connections) {
			sseQueue.push(...connections);
		},
		request: (async (req: TransportRequest) => {
			requests.push(req);
			const path = new URL(req.url).pathname;
			const route = routes.find(
				(r) => `${req.method} ${path}`.startsWith(r.match) && r.replies.length > 0,
			);
			if (!route) throw new Error(`no fake reply for ${req.method} ${path}`);
			let reply = route.replies.length > 1 ? route.replies.shift()! : route.replies[0]!;
			while (typeof reply === 'function') reply = reply(req);
			if (reply instanceof Error) throw reply;
			const text =
				typeof reply.body === 'string'
					? reply.body
					: reply.body === undefined
						? ''
						: JSON.stringify(reply.body);
			const headers: Record<string, string | undefined> = { ...(reply.headers ?? {}) };
			const res: TransportResponse<unknown> = {
				status: reply.status,
				headers,
				body: req.responseType === 'stream' ? Readable.from([Buffer.from(text)]) : text,
			};
			return res;
		}) as Transport['request'],
		openEventStream: async (req) => {
			sse.push(req);
			const next = sseQueue.shift();
			if (!next) throw new Error('no fake SSE connection');
			return next();
		},
	};
	return transport;
}

export interface FakeTime {
	now: () => number;
	sleep: Sleep;
	sleeps: number[];
}

/**
 * Sleep advances the virtual clock at once; abort is honoured. Sleeps of `hangFrom` ms or more
 * (idle timers) never end unless aborted, so races against them are deterministic.
 */
export function fakeTime(start = 1_700_000_000_000, options: { hangFrom?: number } = {}): FakeTime {
	let now = start;
	const sleeps: number[] = [];
	return {
		now: () => now,
		sleeps,
		sleep: async (ms, signal) => {
			if (signal?.aborted) throw signal.reason;
			if (options.hangFrom !== undefined && ms >= options.hangFrom) {
				return new Promise<void>((_, reject) =>
					signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
				);
			}
			sleeps.push(ms);
			now += ms;
			await Promise.resolve();
			if (signal?.aborted) throw signal.reason;
		},
	};
}

export const BASE = 'https://api.render.test';
export const ASYNC = 'https://queue.render.test';
export const SECRET = 'sk_live_very_secret_value_42';

export function fakeClient(
	transport: FakeTransport,
	time: FakeTime,
	overrides: Partial<RenderClientOptions> = {},
): RenderClient {
	return createRenderClient({
		baseUrl: BASE,
		asyncUrl: ASYNC,
		transport,
		sleep: time.sleep,
		clock: time.now,
		random: () => 0,
		secrets: [SECRET],
		cacheIdentity: `unit-${Math.random()}`,
		...overrides,
	});
}

export const MODELS: Model[] = [
	{
		family: 'flux',
		model: 'schnell',
		modality: 'image',
		tasks: ['t2i'],
		backends: ['nunchaku', 'torch'],
		default_backend: 'nunchaku',
		formats: ['1024', '512'],
		status: 'active',
		info: { parameters: '12B', fixed_steps: 4 },
	},
	{
		family: 'flux',
		model: 'dev',
		modality: 'image',
		tasks: ['t2i', 'i2i'],
		backends: ['torch'],
		default_backend: 'torch',
		formats: ['1024', 'portrait'],
		status: 'active',
		info: { parameters: '12B', default_steps: 28, guidance_range: [1, 10] },
	},
	{
		family: 'flux',
		model: 'old',
		modality: 'image',
		tasks: ['t2i'],
		backends: ['torch'],
		default_backend: 'torch',
		formats: ['512'],
		status: 'deprecated',
		info: { default_steps: 20, guidance_range: [1, 5] },
	},
	{
		family: 'wan',
		model: 'next',
		modality: 'video',
		tasks: ['t2i'],
		backends: ['torch'],
		default_backend: 'torch',
		formats: ['landscape'],
		status: 'coming_soon',
		info: {},
	},
	{
		family: 'wan',
		model: 'lite',
		modality: 'video',
		tasks: ['t2i'],
		backends: ['torch'],
		default_backend: 'torch',
		formats: ['landscape'],
		status: 'beta',
		info: {},
	},
];

/** An SSE connection that yields the given items, then ends. */
export function sseOf(
	items: ({ event: string; data: unknown; id?: string; retry?: number } | 'heartbeat')[],
	status = 200,
	contentType = 'text/event-stream',
): () => SseConnection {
	return () => ({
		status,
		headers: { 'content-type': contentType },
		close: () => undefined,
		items: (async function* () {
			for (const item of items) {
				await Promise.resolve();
				if (item === 'heartbeat') yield { type: 'heartbeat' as const };
				else {
					const { data, ...rest } = item;
					yield {
						type: 'event' as const,
						message: { ...rest, data: typeof data === 'string' ? data : JSON.stringify(data) },
					};
				}
			}
		})(),
	});
}
