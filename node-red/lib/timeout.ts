/**
 * What a node does when the wait timed out without throwing (on-timeout "return" or
 * "cancel"): "return" outputs the job ID for a later render-job; "cancel" has already asked
 * the service to cancel and now fails, so a Catch node sees it.
 */
import { TimeoutError } from '../../core/errors';
import type { JobStatus } from '../../core/types';
import type { Translate } from './i18n';
import type { NodeMessage } from './red';
import type { WaitSettings } from './wait-settings';
import type { WorkResult } from './worker';

export interface TimedOut {
	jobId: string;
	lastStatus: JobStatus;
	waitedMs: number;
	cancelled: boolean;
}

export function timedOutResult(
	outcome: TimedOut,
	wait: WaitSettings,
	msg: NodeMessage,
	job: Record<string, unknown>,
	t: Translate,
	prefix: string,
): WorkResult {
	const { jobId } = outcome;
	if (wait.onTimeout === 'cancel') {
		const seconds = timeoutSeconds(wait.timeoutMs);
		const key = outcome.cancelled ? 'cancelledAfterTimeout' : 'notCancelledAfterTimeout';
		throw new TimeoutError(t(`${prefix}.errors.${key}`, { jobId, seconds }), { jobId });
	}
	msg.payload = jobId;
	msg.jobId = jobId;
	msg.job = {
		...job,
		jobId,
		status: outcome.lastStatus,
		timedOut: true,
		cancelled: outcome.cancelled,
		waitedMs: outcome.waitedMs,
	};
	return { out: msg, statusText: t(`${prefix}.status.timedOut`) };
}

/** Whole seconds, but keep a decimal for short timeouts so "0.5 s" never reads as "0 s". */
function timeoutSeconds(ms: number): number {
	return ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000);
}
