/**
 * Waiting for a job: `auto` (SSE, falling back to polling), `sse` or `poll`, within an
 * overall timeout measured on the injected clock, stopped at once by the abort signal. On
 * timeout the caller chooses: fail (TimeoutError naming the job), return the job as timed
 * out, or cancel it on the server first (a service without DELETE is tolerated).
 */
import type { CoreContext } from './context';
import { TimeoutError } from './errors';
import { abortedError } from './http';
import { cancelJob } from './jobs';
import { pollJob } from './poll';
import { SseUnavailable, waitViaSse } from './events';
import type { JobProgress, JobStatus, WaitOptions, WaitOutcome } from './types';
import type { LegResult } from './wait-types';

export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;

export async function waitForJob(
	ctx: CoreContext,
	jobId: string,
	options: WaitOptions = {},
): Promise<WaitOutcome> {
	const started = ctx.clock();
	const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
	const deadline = started + timeoutMs;
	const mode = options.mode ?? 'auto';
	if (options.signal?.aborted) throw abortedError(jobId);

	let lastStatus: JobStatus = 'queued';
	const onProgress = (progress: JobProgress) => {
		lastStatus = progress.status;
		options.onProgress?.(progress);
	};
	const leg = { signal: options.signal, deadline, onProgress };

	let result: LegResult;
	let via: 'sse' | 'poll' = mode === 'poll' ? 'poll' : 'sse';
	if (mode === 'poll') {
		result = await pollJob(ctx, jobId, leg);
	} else {
		try {
			result = await waitViaSse(ctx, jobId, { ...leg, fallback: mode === 'auto' });
		} catch (error) {
			if (!(error instanceof SseUnavailable)) throw error;
			ctx.logger?.debug(`job ${jobId}: ${error.reason}; waiting by polling instead`);
			via = 'poll';
			result = await pollJob(ctx, jobId, { ...leg, lastStatus });
		}
	}

	const waitedMs = ctx.clock() - started;
	if (result.kind === 'complete') {
		return { kind: 'complete', jobId, resultUrl: result.resultUrl, waitedMs, via };
	}
	return onDeadline(ctx, jobId, options, result.lastStatus, waitedMs, timeoutMs);
}

async function onDeadline(
	ctx: CoreContext,
	jobId: string,
	options: WaitOptions,
	lastStatus: JobStatus,
	waitedMs: number,
	timeoutMs: number,
): Promise<WaitOutcome> {
	const choice = options.onTimeout ?? 'fail';
	if (choice === 'fail') {
		throw new TimeoutError(
			`Job ${jobId} did not finish within ${formatSeconds(timeoutMs)} (last status: ${lastStatus}). It may still be running on the service.`,
			{
				jobId,
				hint: 'Raise Timeout, or set On Timeout to "Return" to continue with the job ID or "Cancel" to stop it.',
			},
		);
	}
	let cancelled = false;
	if (choice === 'cancel') {
		try {
			cancelled = await cancelJob(ctx, jobId, { signal: options.signal });
		} catch (error) {
			if (options.signal?.aborted) throw abortedError(jobId);
			ctx.logger?.warn(
				`Job ${jobId}: could not cancel after the timeout (${error instanceof Error ? error.message : 'error'}).`,
			);
		}
	}
	return { kind: 'timed_out', jobId, lastStatus, waitedMs, cancelled };
}

function formatSeconds(ms: number): string {
	const s = ms / 1000;
	return s >= 1 ? `${Number.isInteger(s) ? s : s.toFixed(1)} s` : `${ms} ms`;
}
