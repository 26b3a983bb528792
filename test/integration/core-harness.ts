/**
 * Shared set-up of the core's integration tests: an emulator on ephemeral ports, a client on
 * the real axios transport, and a sleep/clock pair that records every wait the core asks for.
 */
import { createRenderClient } from '../../core/client';
import type { RenderClient, RenderClientOptions } from '../../core/api';
import type { Clock, Sleep, SseConnectRequest, Transport } from '../../core/transport';
import type { GenerationRequest } from '../../core/types';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import { defaultSleep } from '../../core/sleep';
import { createEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator';

export const FAST: EmulatorOptions = {
	port: 0,
	queueMs: 50,
	runMs: 400,
	heartbeatMs: 100,
	sseRetryMs: 50,
	retryAfterSeconds: 0,
};

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	return createEmulator({ ...FAST, ...options });
}

export interface Recorder {
	sleep: Sleep;
	clock: Clock;
	/** Every delay the core asked for, in ms, in order. */
	sleeps: number[];
}

/**
 * Records each requested delay and advances a virtual clock by it, but really sleeps at most
 * `capMs`, so tests can check long waits (Retry-After) without spending them.
 */
export function recordingSleep(capMs = 20): Recorder {
	let skipped = 0;
	const sleeps: number[] = [];
	const clock: Clock = () => Date.now() + skipped;
	const sleep: Sleep = async (ms, signal) => {
		sleeps.push(ms);
		const real = Math.min(ms, capMs);
		await defaultSleep(real, signal);
		skipped += ms - real;
	};
	return { sleep, clock, sleeps };
}

/** Wraps a transport to record SSE connections and the event IDs each one delivered. */
export function spyOnEvents(transport: Transport): {
	transport: Transport;
	connections: { request: SseConnectRequest; status: number; ids: string[] }[];
} {
	const connections: { request: SseConnectRequest; status: number; ids: string[] }[] = [];
	const spied: Transport = {
		request: transport.request.bind(transport) as Transport['request'],
		openEventStream: async (req) => {
			const conn = await transport.openEventStream(req);
			const record = { request: req, status: conn.status, ids: [] as string[] };
			connections.push(record);
			const items = conn.items;
			return {
				...conn,
				close: () => conn.close(),
				items: (async function* () {
					for await (const item of items) {
						if (item.type === 'event' && item.message.id) record.ids.push(item.message.id);
						yield item;
					}
				})(),
			};
		},
	};
	return { transport: spied, connections };
}

export function makeClient(
	emulator: RunningEmulator,
	overrides: Partial<RenderClientOptions> = {},
): RenderClient {
	return createRenderClient({
		baseUrl: emulator.baseUrl,
		asyncUrl: emulator.asyncUrl,
		transport: createAxiosTransport({ apiKey: emulator.apiKey }),
		secrets: [emulator.apiKey],
		cacheIdentity: `test-${emulator.baseUrl}`,
		...overrides,
	});
}

export function request(overrides: Partial<GenerationRequest> = {}): GenerationRequest {
	return {
		modality: 'image',
		family: 'flux',
		model: 'schnell',
		task: 't2i',
		format: '512',
		prompt: 'a red bicycle',
		...overrides,
	};
}

export async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk);
	return Buffer.concat(chunks);
}

export function totalRequests(emulator: RunningEmulator): number {
	return Object.values(emulator.counters().requests).reduce((a, b) => a + b, 0);
}
