/** Shared shapes of the two waiting channels (events.ts, poll.ts) and wait.ts. */
import type { JobProgress, JobStatus } from './types';

export interface LegOptions {
	signal?: AbortSignal;
	/** Epoch ms (injected clock) when the overall wait ends. */
	deadline: number;
	onProgress?: (progress: JobProgress) => void;
	/** Last status known from an earlier channel, carried over on fallback. */
	lastStatus?: JobStatus;
}

export type LegResult =
	| { kind: 'complete'; resultUrl: string }
	| { kind: 'deadline'; lastStatus: JobStatus };

/** Reports progress only when something changed, so callbacks are not flooded by polls. */
export function progressReporter(onProgress: LegOptions['onProgress']) {
	let last = '';
	return (progress: JobProgress) => {
		if (!onProgress) return;
		const key = `${progress.status}|${progress.queuePosition ?? ''}|${progress.progress ?? ''}`;
		if (key === last) return;
		last = key;
		onProgress(progress);
	};
}
