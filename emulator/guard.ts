/** What every authenticated route does first: count, inject faults, authenticate, rate-limit. */
import type { IncomingMessage } from 'node:http';
import { authenticate } from './auth';
import type { Context } from './context';
import { HttpError } from './errors';
import type { EmulatorRoute } from './types';

export async function guard(
	ctx: Context,
	route: EmulatorRoute,
	req: IncomingMessage,
): Promise<string> {
	ctx.counters.requests[route]++;
	const latency = ctx.faults.latency(route);
	if (latency > 0) await delay(ctx, latency);
	const fault = ctx.faults.draw(route);
	if (fault) {
		if (fault.status === 429) ctx.counters.rateLimited++;
		else ctx.counters.injectedErrors++;
		throw fault;
	}
	try {
		const key = authenticate(req, ctx.apiKeys);
		ctx.limiter.take(key);
		return key;
	} catch (err) {
		if (err instanceof HttpError && err.status === 401) ctx.counters.unauthorized++;
		if (err instanceof HttpError && err.status === 429) ctx.counters.rateLimited++;
		throw err;
	}
}

export function delay(ctx: Context, ms: number): Promise<void> {
	return new Promise((resolve) => {
		const timer = setTimeout(() => {
			ctx.timers.delete(timer);
			resolve();
		}, ms);
		ctx.timers.add(timer);
	});
}
