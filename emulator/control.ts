/** The in-process control surface of a running emulator (also behind the HTTP admin routes). */
import type { Context } from './context';
import { copyCounters, emptyCounters } from './counters';
import type { Job } from './jobs';
import type { RunningEmulator } from './types';

export type EmulatorControl = Omit<
	RunningEmulator,
	'baseUrl' | 'asyncUrl' | 'cdnUrl' | 'apiKey' | 'close'
>;

export function createControl(ctx: Context): EmulatorControl {
	const job = (id: string): Job => {
		const found = ctx.store.get(id);
		if (!found) throw new Error(`Unknown job ${id}`);
		return found;
	};
	return {
		counters: () => copyCounters(ctx.counters),
		// In place: the job store holds a reference for its cancellation count.
		resetCounters: () => void Object.assign(ctx.counters, emptyCounters()),
		setFaults: (faults) => {
			ctx.faults.set(faults);
			ctx.truncatedJobs.clear();
		},
		setTiming: (t) => ctx.store.setTiming(t),
		jobs: () => ctx.store.all().map((j) => ctx.store.view(j)),
		expectedResult: (id) => {
			const found = ctx.store.get(id);
			if (!found || found.status !== 'complete') return undefined;
			const { data, mimeType } = ctx.results.get(found.request);
			return { data, mimeType };
		},
		failJob: (id, code = 'generation_failed', message = 'The job failed on the server.') =>
			ctx.store.fail(job(id), code, message),
		cancelJob: (id) => ctx.store.cancel(job(id)),
		expireCdnUrls: () => ctx.signer.expireAll(),
	};
}
