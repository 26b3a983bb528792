/**
 * Backoff and Retry-After rules, as pure functions so unit tests can pin the schedule.
 * Defaults are documented in docs/client.md.
 */

export interface BackoffPolicy {
	/** Delay of the first retry, in ms. */
	initialMs: number;
	/** Growth per attempt. */
	factor: number;
	/** Ceiling of the un-jittered delay, in ms. */
	maxMs: number;
	/** 0..1: how much of the delay may be randomly removed. 0 = deterministic. */
	jitter: number;
}

/** Transient-error backoff: 0.5 s doubling to 8 s, up to half removed at random. */
export const ERROR_BACKOFF: BackoffPolicy = {
	initialMs: 500,
	factor: 2,
	maxMs: 8_000,
	jitter: 0.5,
};

/**
 * Polling interval while a job runs without telling us when it ends: 0.5 s doubling to a 15 s
 * ceiling (0, 0.5, 1.5, 3.5, 7.5, 15.5, 30.5, 45.5 s... after it starts running). A job of a
 * few seconds is seen within a second or two; a 60 s job costs 10 requests instead of a fixed
 * 2 s poller's 31; a long job costs one request per 15 s. The price is up to one interval of
 * extra wait on long jobs, which the completion estimate from progress (poll-plan.ts) removes
 * when the service reports it. The queue phase has its own rule (poll-plan.ts).
 */
export const POLL_SCHEDULE: BackoffPolicy = {
	initialMs: 500,
	factor: 2,
	maxMs: 15_000,
	jitter: 0,
};

/** Reconnect delay for a dropped event stream when the server sent no `retry:`. */
export const SSE_RECONNECT: BackoffPolicy = {
	initialMs: 250,
	factor: 2,
	maxMs: 8_000,
	jitter: 0.5,
};

/** We never wait longer than this for one `Retry-After`, so a bad header cannot stall a flow. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Shortest wait we accept from a server hint; protects the service from hammering. */
export const MIN_HINT_MS = 250;

/** Delay before retry number `attempt` (0-based). */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
	const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
	// Jitter only shortens the wait: clients that failed together spread out, none waits longer.
	const r = Math.min(1, Math.max(0, random()));
	return Math.round(base * (1 - policy.jitter * r));
}

/**
 * `Retry-After` in ms: delta-seconds (integer or decimal) or an HTTP date. Undefined when the
 * header is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (text === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	// HTTP dates name a weekday or month; this keeps "-5" from parsing as a year.
	if (!/[a-z]/i.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

/** A server's wait hint, clamped to [MIN_HINT_MS, MAX_RETRY_AFTER_MS]. */
export function clampHint(ms: number): number {
	return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_HINT_MS, ms));
}

/**
 * Delay before retrying a transient failure: the server's `Retry-After` when given (it knows
 * when it will have capacity; capped), else jittered exponential backoff.
 */
export function retryDelay(
	attempt: number,
	random: () => number,
	retryAfterMs?: number,
	policy: BackoffPolicy = ERROR_BACKOFF,
): number {
	if (retryAfterMs !== undefined) return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, retryAfterMs));
	return backoffDelay(attempt, policy, random);
}

/**
 * Polling interval number `pollIndex` of our schedule, never shorter than the server's hint:
 * `Retry-After` is a floor (the service asks us not to come back sooner), not a replacement
 * for our schedule, which would otherwise poll a long job every second.
 */
export function pollDelay(pollIndex: number, hintMs?: number): number {
	const ours = backoffDelay(pollIndex, POLL_SCHEDULE, () => 0);
	return hintMs === undefined ? ours : Math.max(ours, clampHint(hintMs));
}

/**
 * Statuses worth retrying: timeouts, rate limits and server trouble. 501 and 505 are
 * permanent ("not implemented"), so they are not retried.
 */
export function isTransientStatus(status: number): boolean {
	if (status === 408 || status === 425 || status === 429) return true;
	return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}
