/**
 * Waiting by polling `GET /jobs/{id}`. The first poll is immediate; poll-plan.ts chooses each
 * next wait: while queued at most 30 % of the wait so far, while running our schedule (0.5 s
 * doubling to a 15 s ceiling) or just after the completion estimated from the job's progress,
 * never sooner than the answer's `Retry-After`. Transient
 * errors (408, 429, 5xx, network) are retried with jittered backoff or their `Retry-After`,
 * for as long as the overall deadline allows: they never count as a failed job.
 */
import type { CoreContext } from './context';
import { isTransientError, retryAfterOf } from './http';
import { jobCancelled, jobFailed } from './job-outcome';
import { getJob, isComplete, type PendingSnapshot } from './jobs';
import { planNextPoll, startPollPlan } from './poll-plan';
import { retryDelay } from './retry';
import type { JobSnapshot, JobStatus } from './types';
import { sleepOrAbort } from './wait-helpers';
import { progressReporter, type LegOptions, type LegResult } from './wait-types';

export async function pollJob(
	ctx: CoreContext,
	jobId: string,
	options: LegOptions,
): Promise<LegResult> {
	const report = progressReporter(options.onProgress);
	let lastStatus: JobStatus = options.lastStatus ?? 'queued';
	let plan = startPollPlan();
	let errors = 0;
	for (;;) {
		const remaining = options.deadline - ctx.clock();
		if (remaining <= 0) return { kind: 'deadline', lastStatus };
		let snapshot: JobSnapshot;
		try {
			snapshot = await getJob(ctx, jobId, {
				signal: options.signal,
				timeoutMs: Math.min(ctx.requestTimeoutMs, remaining),
			});
		} catch (error) {
			if (!isTransientError(error)) throw error;
			const delay = retryDelay(errors++, ctx.random, retryAfterOf(error));
			ctx.logger?.debug(`job ${jobId}: transient error while polling; next try in ${delay} ms`);
			await sleepUntil(ctx, delay, options, jobId);
			continue;
		}
		errors = 0;
		if (isComplete(snapshot)) return { kind: 'complete', resultUrl: snapshot.resultUrl };
		const pending: PendingSnapshot = snapshot;
		if (snapshot.status === 'failed') throw jobFailed(jobId, pending.error, ctx.secrets);
		if (snapshot.status === 'cancelled') throw jobCancelled(jobId);
		lastStatus = pending.status;
		report({
			jobId,
			status: pending.status,
			queuePosition: pending.queuePosition,
			progress: pending.progress,
			via: 'poll',
		});
		const next = planNextPoll(plan, {
			at: ctx.clock(),
			status: pending.status,
			progress: pending.progress,
			retryAfterMs: pending.retryAfterMs,
		});
		plan = next.plan;
		ctx.logger?.debug(
			`job ${jobId}: ${pending.status}; next poll in ${next.delayMs} ms (${next.reason})`,
		);
		await sleepUntil(ctx, next.delayMs, options, jobId);
	}
}

/** Sleeps `ms`, but never past the deadline. */
async function sleepUntil(
	ctx: CoreContext,
	ms: number,
	options: LegOptions,
	jobId: string,
): Promise<void> {
	const remaining = options.deadline - ctx.clock();
	await sleepOrAbort(ctx, Math.max(0, Math.min(ms, remaining)), options.signal, jobId);
}
