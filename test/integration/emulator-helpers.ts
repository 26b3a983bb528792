/** Shared helpers of the emulator's integration tests (real HTTP against createEmulator). */
import { request } from 'node:http';
import { createEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator';
import { expectMatchesOpenApi } from '../helpers/openapi';

/** Fast timings so the suites run in seconds. */
export function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	return createEmulator({ port: 0, queueMs: 20, runMs: 60, heartbeatMs: 60_000, ...options });
}

export const imageJob = {
	modality: 'image',
	family: 'flux',
	model: 'dev',
	task: 't2i',
	format: '512',
	prompt: 'a lighthouse at dusk',
};

export function auth(
	emu: RunningEmulator,
	extra: Record<string, string> = {},
): Record<string, string> {
	return { authorization: `Bearer ${emu.apiKey}`, ...extra };
}

export interface Reply {
	status: number;
	headers: Headers;
	body: unknown;
	text: string;
}

/** A fetch that never follows redirects, parses JSON, and checks the reply against the OpenAPI document. */
export async function call(
	url: string,
	init: { method?: string; headers?: Record<string, string>; body?: string } = {},
	options: { openApi?: boolean } = {},
): Promise<Reply> {
	const method = init.method ?? 'GET';
	const res = await fetch(url, { ...init, method, redirect: 'manual' });
	const text = await res.text();
	const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
	const body: unknown = json && text ? JSON.parse(text) : text;
	if (options.openApi !== false)
		expectMatchesOpenApi({ method, url, status: res.status, headers: res.headers, body });
	return { status: res.status, headers: res.headers, body, text };
}

export async function submit(
	emu: RunningEmulator,
	job: Record<string, unknown> = imageJob,
	headers: Record<string, string> = {},
): Promise<{ id: string; status: string; queue_position?: number }> {
	const reply = await call(`${emu.asyncUrl}/queue`, {
		method: 'POST',
		headers: auth(emu, { 'content-type': 'application/json', ...headers }),
		body: JSON.stringify(job),
	});
	expect(reply.status).toBe(202);
	return reply.body as { id: string; status: string; queue_position?: number };
}

/** Polls until the job leaves the given states; returns the last reply. */
export async function pollUntil(
	emu: RunningEmulator,
	id: string,
	done: (r: Reply) => boolean,
): Promise<Reply> {
	for (let i = 0; i < 500; i++) {
		const reply = await call(`${emu.asyncUrl}/jobs/${id}`, { headers: auth(emu) });
		if (done(reply)) return reply;
		await sleep(10);
	}
	throw new Error(`job ${id} never reached the expected state`);
}

export const completed = (r: Reply): boolean => r.status === 303;

export async function resultUrlOf(emu: RunningEmulator, id: string): Promise<string> {
	const reply = await pollUntil(emu, id, completed);
	return reply.headers.get('location') as string;
}

export const sleep = (ms: number): Promise<void> =>
	new Promise((resolve) => setTimeout(resolve, ms));

export interface SseEvent {
	id?: string;
	event: string;
	data: string;
}

export interface SseResult {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	events: SseEvent[];
	comments: string[];
	retry?: number;
	/** Raw bytes received after the headers. */
	raw: string;
	/** True when the server ended the stream (false when we stopped reading). */
	ended: boolean;
}

/**
 * Reads an SSE stream with node:http (full control of Last-Event-ID), until the server ends
 * it, `stopAfterMs` passes, or `stopWhen` says so.
 */
export function readSse(
	url: string,
	headers: Record<string, string>,
	options: {
		stopAfterMs?: number;
		stopWhen?: (r: SseResult) => boolean;
		/** Called once per event as it arrives. */
		onEvent?: (event: SseEvent) => void;
	} = {},
): Promise<SseResult> {
	return new Promise((resolve, reject) => {
		const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
			const result: SseResult = {
				status: res.statusCode ?? 0,
				headers: res.headers,
				events: [],
				comments: [],
				raw: '',
				ended: false,
			};
			let buffer = '';
			const finish = (ended: boolean): void => {
				clearTimeout(timer);
				result.ended = ended;
				res.removeAllListeners('data');
				req.destroy();
				resolve(result);
			};
			const timer = setTimeout(() => finish(false), options.stopAfterMs ?? 5000);
			res.setEncoding('utf8');
			res.on('data', (chunk: string) => {
				result.raw += chunk;
				buffer += chunk;
				let cut: number;
				while ((cut = buffer.indexOf('\n\n')) >= 0) {
					const before = result.events.length;
					parseBlock(buffer.slice(0, cut), result);
					for (const event of result.events.slice(before)) options.onEvent?.(event);
					buffer = buffer.slice(cut + 2);
				}
				if (options.stopWhen?.(result)) finish(false);
			});
			res.on('end', () => finish(true));
			res.on('error', () => finish(true));
		});
		req.on('error', reject);
		req.end();
	});
}

function parseBlock(block: string, result: SseResult): void {
	const event: SseEvent = { event: 'message', data: '' };
	let hasData = false;
	for (const line of block.split('\n')) {
		if (line.startsWith(':')) {
			result.comments.push(line.slice(1).trim());
			continue;
		}
		const colon = line.indexOf(':');
		const field = colon < 0 ? line : line.slice(0, colon);
		const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
		if (field === 'retry') result.retry = Number(value);
		else if (field === 'id') event.id = value;
		else if (field === 'event') event.event = value;
		else if (field === 'data') {
			event.data = hasData ? `${event.data}\n${value}` : value;
			hasData = true;
		}
	}
	if (hasData) result.events.push(event);
}
