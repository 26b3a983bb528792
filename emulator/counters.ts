/** Counters the tests read to prove what a client did (and did not do). */
import { EMULATOR_ROUTES, type EmulatorCounters, type EmulatorRoute } from './types';

export function emptyCounters(): EmulatorCounters {
	const requests = Object.fromEntries(EMULATOR_ROUTES.map((r) => [r, 0])) as Record<
		EmulatorRoute,
		number
	>;
	return {
		requests,
		jobsCreated: 0,
		idempotentReplays: 0,
		cdnAuthorizationHeaders: 0,
		sseConnections: 0,
		unauthorized: 0,
		rateLimited: 0,
		injectedErrors: 0,
		jobsCancelled: 0,
	};
}

export function copyCounters(c: EmulatorCounters): EmulatorCounters {
	return { ...c, requests: { ...c.requests } };
}
