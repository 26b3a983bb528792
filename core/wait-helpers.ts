/** Sleeping through the injected `sleep`, with aborts turned into the core's AbortedError. */
import type { CoreContext } from './context';
import { abortedError } from './http';

export async function sleepOrAbort(
	ctx: CoreContext,
	ms: number,
	signal: AbortSignal | undefined,
	jobId?: string,
): Promise<void> {
	if (signal?.aborted) throw abortedError(jobId);
	try {
		await ctx.sleep(Math.max(0, ms), signal);
	} catch (error) {
		if (signal?.aborted) throw abortedError(jobId);
		throw error;
	}
	if (signal?.aborted) throw abortedError(jobId);
}
