/**
 * Requests per job while waiting, for a 60 s job: the emulator's counters of `GET /jobs/{id}`
 * and `GET /jobs/{id}/events` (submission and download excluded), averaged over jobs that
 * run concurrently. Each way of waiting gets its own emulator so the counters are its own.
 */
import type { RunningEmulator } from '../emulator/types';
import { coreClient, fixedPoll, submitPlain } from './lib/clients';
import { JOB_REQUEST, startEmulator } from './lib/emulators';
import { round } from './lib/stats';

export const LONG_JOB_MS = 60_000;

export interface RequestCount {
	id: string;
	label: string;
	jobs: number;
	/** Average waiting requests per job. */
	perJob: number;
	jobRequests: number;
	eventRequests: number;
}

export interface Waiter {
	id: string;
	label: string;
	waitOne(emulator: RunningEmulator): Promise<void>;
}

function coreWaiter(id: string, label: string, mode: 'sse' | 'poll'): Waiter {
	return {
		id,
		label,
		async waitOne(emulator) {
			const client = coreClient(emulator);
			const job = await client.submit({ ...JOB_REQUEST });
			const outcome = await client.wait(job.jobId, { mode, timeoutMs: 5 * LONG_JOB_MS });
			if (outcome.kind !== 'complete') throw new Error(`job ${job.jobId} did not complete`);
		},
	};
}

function fixedWaiter(intervalMs: number): Waiter {
	return {
		id: `fixed-${intervalMs / 1000}s`,
		label: `Fixed ${intervalMs / 1000} s poller`,
		async waitOne(emulator) {
			await fixedPoll(emulator, await submitPlain(emulator), intervalMs);
		},
	};
}

export const WAITERS: Waiter[] = [
	coreWaiter('core-sse', 'Core, SSE', 'sse'),
	coreWaiter('core-poll', 'Core, our polling', 'poll'),
	fixedWaiter(2_000),
	fixedWaiter(5_000),
];

/** An emulator for the request count: 60 s jobs, a worker for each. */
export function requestsEmulator(jobs: number): Promise<RunningEmulator> {
	return startEmulator({ concurrency: jobs, runMs: LONG_JOB_MS });
}

export async function countRequests(
	waiter: Waiter,
	jobs: number,
	emulator?: RunningEmulator,
): Promise<RequestCount> {
	emulator ??= await requestsEmulator(jobs);
	// The catalogue is fetched once for validation; it is not part of waiting.
	await Promise.all(Array.from({ length: jobs }, () => waiter.waitOne(emulator)));
	const { requests } = emulator.counters();
	return {
		id: waiter.id,
		label: waiter.label,
		jobs,
		perJob: round((requests.job + requests.events) / jobs, 2),
		jobRequests: requests.job,
		eventRequests: requests.events,
	};
}
