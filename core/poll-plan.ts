/**
 * When to poll next, as a pure function of what the polls so far have seen, so unit tests pin
 * the schedule with a fake clock. Inputs, in order of trust:
 * - the server's `Retry-After`: a floor, we never ask sooner than the service wants;
 * - while queued: a wait of at most 30 % of the time since the first poll, since a queue says
 *   nothing about when it ends; the extra wait stays proportional to the wait so far;
 * - the job's progress while running: from the first and latest progress samples we estimate
 *   when it completes and poll just after that (within the floor and our ceiling);
 * - otherwise our growing schedule (retry.ts POLL_SCHEDULE), started afresh when the job starts
 *   running and when an estimate passes without the job completing.
 * Defaults and the reasons for them are in docs/client.md.
 */
import { POLL_SCHEDULE, backoffDelay, clampHint, type BackoffPolicy } from './retry';
import type { JobStatus } from './types';

/** What one poll of a pending job saw. */
export interface PollSighting {
	/** Injected-clock ms when the answer arrived. */
	at: number;
	status: JobStatus;
	/** 0..1, while running. */
	progress?: number;
	/** The answer's `Retry-After`, in ms. */
	retryAfterMs?: number;
}

interface ProgressSample {
	at: number;
	progress: number;
}

/** The planner's memory between polls. Start from `startPollPlan()`. */
export interface PollPlan {
	/** Step of the growing schedule the next schedule-based wait uses. */
	step: number;
	/** First progress sample of the running phase. */
	first?: ProgressSample;
	/** When the current (highest) progress value was first seen. */
	latest?: ProgressSample;
	/** Set while the last wait aimed just after an estimated completion. */
	aimedAt?: number;
	/** When the first poll answered: queue waits grow with the time since. */
	since?: number;
}

export interface PollDecision {
	delayMs: number;
	/** What set the delay: our schedule, the completion estimate, or the server's floor. */
	reason: 'schedule' | 'estimate' | 'retry-after';
	plan: PollPlan;
}

export interface PollPolicy {
	schedule: BackoffPolicy;
	/** Waits aimed at an estimate end this long after it, plus `etaMarginFraction` of the wait. */
	etaMarginMs: number;
	etaMarginFraction: number;
	/**
	 * While queued, each wait is at most this fraction of the time since the first poll (and at
	 * least the schedule's first interval): the extra wait stays proportional to the wait so far.
	 */
	queuedFraction: number;
}

export const POLL_POLICY: PollPolicy = {
	schedule: POLL_SCHEDULE,
	etaMarginMs: 250,
	etaMarginFraction: 0.05,
	queuedFraction: 0.3,
};

export function startPollPlan(): PollPlan {
	return { step: 0 };
}

/** The delay before the next poll after `seen`, and the plan to pass to the next call. */
export function planNextPoll(
	plan: PollPlan,
	seen: PollSighting,
	policy: PollPolicy = POLL_POLICY,
): PollDecision {
	const since = plan.since ?? seen.at;
	const memory = { ...addSample(plan, seen), since };
	const floor = seen.retryAfterMs === undefined ? 0 : clampHint(seen.retryAfterMs);
	const { initialMs, maxMs } = policy.schedule;
	if (seen.status === 'queued') {
		const delay = clamp(Math.round((seen.at - since) * policy.queuedFraction), initialMs, maxMs);
		return decide(delay, floor, 'schedule', { ...memory, step: 0 });
	}
	const eta = estimateCompletion(memory.first, memory.latest);
	if (eta !== undefined && eta > seen.at) {
		const ahead = eta - seen.at;
		const wanted = ahead + policy.etaMarginMs + ahead * policy.etaMarginFraction;
		const delay = clamp(Math.round(wanted), initialMs, maxMs);
		return decide(delay, floor, 'estimate', { ...memory, step: plan.step, aimedAt: eta });
	}
	// The queue phase leaves the step at 0, so the running phase starts its schedule afresh: a job
	// that just started may end soon. An estimate that passed without completion is not trusted:
	// start again from short waits too.
	const step = plan.aimedAt !== undefined ? 0 : plan.step;
	const delay = backoffDelay(step, policy.schedule, () => 0);
	return decide(delay, floor, 'schedule', { ...memory, step: step + 1 });
}

function clamp(value: number, low: number, high: number): number {
	return Math.min(high, Math.max(low, value));
}

function decide(
	delay: number,
	floor: number,
	reason: PollDecision['reason'],
	plan: PollPlan,
): PollDecision {
	if (floor > delay) return { delayMs: floor, reason: 'retry-after', plan };
	return { delayMs: delay, reason, plan };
}

/**
 * Keeps the first running sample and the first sighting of the highest progress value: seeing
 * the same value again says nothing new about the rate. Leaving the running phase, or
 * progress going backwards (a restarted job), forgets the samples.
 */
function addSample(plan: PollPlan, seen: PollSighting): Pick<PollPlan, 'first' | 'latest'> {
	const p = seen.progress;
	if (seen.status !== 'running' || p === undefined || !(p >= 0 && p <= 1)) {
		return seen.status === 'running' ? { first: plan.first, latest: plan.latest } : {};
	}
	const sample = { at: seen.at, progress: p };
	if (!plan.first || !plan.latest || p < plan.latest.progress) {
		return { first: sample, latest: sample };
	}
	return { first: plan.first, latest: p > plan.latest.progress ? sample : plan.latest };
}

/** Completion time by linear extrapolation of progress; undefined without a measurable rate. */
export function estimateCompletion(
	first: ProgressSample | undefined,
	latest: ProgressSample | undefined,
): number | undefined {
	if (!first || !latest) return undefined;
	const gained = latest.progress - first.progress;
	const took = latest.at - first.at;
	if (gained <= 0 || took <= 0) return undefined;
	return latest.at + ((1 - latest.progress) * took) / gained;
}
