/**
 * Event names the core understands on a job's event stream. The spec leaves them open, so we
 * accept the common synonyms. One list, read by the wait logic and by transports that must
 * subscribe to names one by one (EventSource delivers only the names someone listens to).
 */

export const COMPLETE_EVENTS: ReadonlySet<string> = new Set([
	'complete',
	'completed',
	'succeeded',
	'success',
	'done',
	'result',
	'finished',
]);

export const FAILED_EVENTS: ReadonlySet<string> = new Set([
	'failed',
	'failure',
	'error',
	'errored',
]);

export const CANCELLED_EVENTS: ReadonlySet<string> = new Set(['cancelled', 'canceled', 'aborted']);

/** Names that carry status or progress, and keep-alives. */
export const OTHER_EVENTS: ReadonlySet<string> = new Set([
	'message',
	'status',
	'progress',
	'update',
	'queued',
	'running',
	'job',
	'ping',
	'heartbeat',
]);

/** Every name above. */
export const ALL_JOB_EVENTS: readonly string[] = [
	...OTHER_EVENTS,
	...COMPLETE_EVENTS,
	...FAILED_EVENTS,
	...CANCELLED_EVENTS,
];
