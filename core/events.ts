/**
 * Waiting by server-sent events on `{async}/jobs/{id}/events`. Drops are resumed with
 * `Last-Event-ID` after the server's `retry:` or a jittered backoff; events are de-duplicated
 * by ID, so a replay after resuming never reports twice. In `auto` mode the caller falls
 * back to polling (SseUnavailable) when the stream is refused, is not an event stream, keeps
 * failing, or stays silent past the idle limit.
 */
import type { CoreContext } from './context';
import { UnauthorizedError, ServiceError } from './errors';
import { abortedError, isRecord, parseJson, resolveUrl } from './http';
import { jobCancelled, jobFailed } from './job-outcome';
import { knownJobStatus, readJobFields } from './job-status';
import { getJob, isComplete, jobUrl } from './jobs';
import {
	backoffDelay,
	clampHint,
	isTransientStatus,
	MAX_RETRY_AFTER_MS,
	parseRetryAfter,
	SSE_RECONNECT,
} from './retry';
import { linkSignals } from './sleep';
import { TransportError, type SseConnection, type SseItem, type SseMessage } from './transport';
import type { JobStatus } from './types';
import { sleepOrAbort } from './wait-helpers';
import { progressReporter, type LegOptions, type LegResult } from './wait-types';
import { CANCELLED_EVENTS, COMPLETE_EVENTS, FAILED_EVENTS } from './sse-event-names';

/** Thrown to tell wait.ts that SSE cannot be used and polling should take over. */
export class SseUnavailable extends Error {
	constructor(readonly reason: string) {
		super(reason);
		this.name = 'SseUnavailable';
	}
}

export interface SseLegOptions extends LegOptions {
	/** true in `auto` mode: give up on SSE instead of insisting. */
	fallback: boolean;
}

/** Consecutive failed connection attempts before `auto` gives up on SSE. */
const MAX_SSE_FAILURES = 3;

export function eventsUrl(ctx: CoreContext, jobId: string): string {
	return `${jobUrl(ctx, jobId)}/events`;
}

export function isEventStream(headers: Record<string, string | undefined>): boolean {
	return (headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
}

type Next = IteratorResult<SseItem> | 'idle';

export async function waitViaSse(
	ctx: CoreContext,
	jobId: string,
	options: SseLegOptions,
): Promise<LegResult> {
	const state = {
		lastEventId: undefined as string | undefined,
		seen: new Set<string>(),
		lastStatus: (options.lastStatus ?? 'queued') as JobStatus,
		serverRetryMs: undefined as number | undefined,
		/** `Retry-After` of a refused (429/503) connection attempt, for the next delay only. */
		retryAfterMs: undefined as number | undefined,
		failures: 0,
	};
	const report = progressReporter(options.onProgress);
	const url = eventsUrl(ctx, jobId);

	for (;;) {
		if (options.deadline - ctx.clock() <= 0)
			return { kind: 'deadline', lastStatus: state.lastStatus };
		const link = linkSignals(options.signal);
		let conn: SseConnection | undefined;
		try {
			conn = await openOnce(ctx, url, state, link.signal, options, jobId);
			if (conn) {
				const result = await readStream(ctx, conn, jobId, options, state, report);
				if (result) return result;
			}
		} finally {
			conn?.close();
			link.controller.abort();
			link.dispose();
		}
		state.failures++;
		if (options.fallback && state.failures >= MAX_SSE_FAILURES) {
			throw new SseUnavailable('the event stream kept failing');
		}
		const delay =
			state.retryAfterMs !== undefined
				? Math.min(state.retryAfterMs, MAX_RETRY_AFTER_MS)
				: state.failures <= 1 && state.serverRetryMs !== undefined
					? state.serverRetryMs
					: backoffDelay(state.failures - 1, SSE_RECONNECT, ctx.random);
		state.retryAfterMs = undefined;
		const remaining = options.deadline - ctx.clock();
		await sleepOrAbort(ctx, Math.max(0, Math.min(delay, remaining)), options.signal, jobId);
	}
}

/** Opens one connection; returns undefined for a transient failure worth another try. */
async function openOnce(
	ctx: CoreContext,
	url: string,
	state: { lastEventId?: string; retryAfterMs?: number },
	signal: AbortSignal,
	options: SseLegOptions,
	jobId: string,
): Promise<SseConnection | undefined> {
	const lastEventId = state.lastEventId;
	let conn: SseConnection;
	try {
		const limit = Math.max(0, Math.min(ctx.sseIdleMs, options.deadline - ctx.clock()));
		const opened = await withinLimit(
			ctx,
			ctx.transport.openEventStream({ url, lastEventId, signal }),
			limit,
			options.signal,
		);
		if (opened === 'idle') {
			// No response headers in time: counts as a failed attempt (the caller closes `signal`).
			ctx.logger?.debug(`job ${jobId}: event stream did not answer within ${limit} ms`);
			return undefined;
		}
		conn = opened;
	} catch (error) {
		if (options.signal?.aborted) throw abortedError(jobId);
		if (error instanceof TransportError) {
			ctx.logger?.debug(`job ${jobId}: event stream connection failed (${error.code})`);
			return undefined;
		}
		throw error;
	}
	if (conn.status === 200 && isEventStream(conn.headers)) return conn;
	conn.close();
	const status = conn.status;
	if (status === 401 || status === 403) {
		throw new UnauthorizedError(
			`Job ${jobId}: the Render Service refused the API key for the event stream (HTTP ${status}).`,
			{
				jobId,
				status,
				hint: 'Check the API key in the Render Service credential.',
			},
		);
	}
	if (isTransientStatus(status)) {
		state.retryAfterMs = parseRetryAfter(conn.headers['retry-after'], ctx.clock());
		return undefined;
	}
	const reason =
		status === 200
			? `the event stream answered with ${conn.headers['content-type'] ?? 'no content type'}, not text/event-stream`
			: `the event stream was refused (HTTP ${status})`;
	if (options.fallback) throw new SseUnavailable(reason);
	throw new ServiceError(`Job ${jobId}: ${reason}.`, {
		jobId,
		status,
		hint: 'Set Wait Mode to Auto or Poll; this service does not offer live events.',
	});
}

/** Reads events until the job ends (returns), the stream drops (undefined) or it idles. */
async function readStream(
	ctx: CoreContext,
	conn: SseConnection,
	jobId: string,
	options: SseLegOptions,
	state: {
		lastEventId?: string;
		seen: Set<string>;
		lastStatus: JobStatus;
		serverRetryMs?: number;
		failures: number;
	},
	report: ReturnType<typeof progressReporter>,
): Promise<LegResult | undefined> {
	const iterator = conn.items[Symbol.asyncIterator]();
	for (;;) {
		const remaining = options.deadline - ctx.clock();
		if (remaining <= 0) return { kind: 'deadline', lastStatus: state.lastStatus };
		const limit = Math.min(ctx.sseIdleMs, remaining);
		let next: Next;
		try {
			next = await nextOrIdle(ctx, iterator, limit, options.signal);
		} catch (error) {
			if (options.signal?.aborted) throw abortedError(jobId);
			ctx.logger?.debug(
				`job ${jobId}: event stream broke (${error instanceof Error ? error.name : 'error'})`,
			);
			return undefined;
		}
		if (next === 'idle') {
			if (options.deadline - ctx.clock() <= 0)
				return { kind: 'deadline', lastStatus: state.lastStatus };
			if (options.fallback) throw new SseUnavailable(`the event stream was silent for ${limit} ms`);
			return undefined;
		}
		if (next.done) return undefined;
		if (next.value.type !== 'event') continue;
		// Only an event proves the stream useful: one that opens and closes empty is a failure.
		state.failures = 0;
		const message = next.value.message;
		if (message.retry !== undefined) state.serverRetryMs = clampHint(message.retry);
		if (message.id !== undefined && message.id !== '') {
			if (state.seen.has(message.id)) continue;
			state.seen.add(message.id);
			state.lastEventId = message.id;
		}
		const result = await handleEvent(ctx, jobId, message, state, report, options);
		if (result) return result;
	}
}

/** Races the next item against the idle limit; the timer is cancelled either way. */
function nextOrIdle(
	ctx: CoreContext,
	iterator: AsyncIterator<SseItem>,
	limitMs: number,
	signal: AbortSignal | undefined,
): Promise<Next> {
	return withinLimit(ctx, iterator.next(), limitMs, signal);
}

/** `pending`, or 'idle' when `limitMs` passes first (on the injected sleep). */
async function withinLimit<T>(
	ctx: CoreContext,
	pending: Promise<T>,
	limitMs: number,
	signal: AbortSignal | undefined,
): Promise<T | 'idle'> {
	const timer = linkSignals(signal);
	const idle = ctx.sleep(limitMs, timer.signal).then(
		() => 'idle' as const,
		(error: unknown) => {
			if (signal?.aborted) throw error;
			return new Promise<never>(() => undefined);
		},
	);
	try {
		const winner = await Promise.race([pending, idle]);
		if (winner === 'idle') pending.catch(() => undefined);
		return winner;
	} finally {
		timer.controller.abort();
		timer.dispose();
	}
}

async function handleEvent(
	ctx: CoreContext,
	jobId: string,
	message: SseMessage,
	state: { lastStatus: JobStatus },
	report: ReturnType<typeof progressReporter>,
	options: SseLegOptions,
): Promise<LegResult | undefined> {
	const data = parseJson(message.data);
	const fields = readJobFields(isRecord(data) ? data : {});
	const name = message.event.toLowerCase();
	if (name === 'error' && !fields.error && fields.status !== 'failed') {
		// A stream-level notice, not a verdict on the job: polling or the next event decides.
		ctx.logger?.debug(`job ${jobId}: the event stream sent an error notice without a job error`);
		return undefined;
	}
	const status =
		(COMPLETE_EVENTS.has(name) ? 'complete' : undefined) ??
		(FAILED_EVENTS.has(name) ? 'failed' : undefined) ??
		(CANCELLED_EVENTS.has(name) ? 'cancelled' : undefined) ??
		fields.status ??
		knownJobStatus(name);

	if (status === 'complete') {
		const url = fields.resultUrl ? resolveUrl(fields.resultUrl, eventsUrl(ctx, jobId)) : undefined;
		if (url) return { kind: 'complete', resultUrl: url };
		// The event carried no address: the job's 303 has it.
		const snapshot = await getJob(ctx, jobId, { signal: options.signal });
		if (isComplete(snapshot)) return { kind: 'complete', resultUrl: snapshot.resultUrl };
		return undefined;
	}
	if (status === 'failed') throw jobFailed(jobId, fields.error, ctx.secrets);
	if (status === 'cancelled') throw jobCancelled(jobId);
	if (status) state.lastStatus = status;
	else if (fields.progress !== undefined && state.lastStatus === 'queued')
		state.lastStatus = 'running';
	if (status || fields.progress !== undefined || fields.queuePosition !== undefined) {
		report({
			jobId,
			status: state.lastStatus,
			queuePosition: fields.queuePosition,
			progress: fields.progress,
			via: 'sse',
		});
	}
	return undefined;
}
