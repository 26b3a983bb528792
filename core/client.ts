/**
 * The facade engines use: `createRenderClient(options)` wires the injected transport, sleep
 * and clock into each concern. Every method scrubs configured secrets from whatever it
 * throws, as a last line of defence behind the per-message scrubbing.
 */
import type { Catalogue, GenerateOutcome, RenderClient, RenderClientOptions } from './api';
import { createCatalogue, listModels } from './catalogue';
import { createContext, type CoreContext } from './context';
import { downloadResult, downloadToBuffer } from './download';
import { RenderServiceError, scrub } from './errors';
import { cancelJob, getJob, isComplete } from './jobs';
import { submitJob } from './submit';
import { validateRequest } from './validation';
import { waitForJob } from './wait';

export function createRenderClient(options: RenderClientOptions): RenderClient {
	const ctx = createContext(options);
	const guard =
		<A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
		async (...args: A): Promise<R> => {
			try {
				return await fn(...args);
			} catch (error) {
				throw scrubError(error, ctx.secrets);
			}
		};

	const catalogue = async (o: { signal?: AbortSignal; fresh?: boolean } = {}): Promise<Catalogue> =>
		createCatalogue(await listModels(ctx, {}, o));

	const validate: RenderClient['validate'] = async (request, o = {}) =>
		validateRequest(request, await catalogue({ signal: o.signal }));

	const submit: RenderClient['submit'] = async (request, o = {}) => {
		const warnings = o.skipValidation
			? []
			: (await validate(request, { signal: o.signal })).warnings;
		warnings.forEach((w) => ctx.logger?.warn(w));
		return submitJob(ctx, request, {
			signal: o.signal,
			idempotencyKey: o.idempotencyKey,
			warnings,
		});
	};

	const generate: RenderClient['generate'] = async (request, o = {}) =>
		runGenerate(ctx, { submit, request, options: o });

	return {
		listModels: guard((filter = {}, o = {}) => listModels(ctx, filter, o)),
		catalogue: guard(catalogue),
		validate: guard(validate),
		submit: guard(submit),
		getJob: guard((jobId: string, o: { signal?: AbortSignal } = {}) => getJob(ctx, jobId, o)),
		wait: guard((jobId: string, o = {}) => waitForJob(ctx, jobId, o)),
		cancel: guard((jobId: string, o: { signal?: AbortSignal } = {}) => cancelJob(ctx, jobId, o)),
		download: guard((jobId: string, url: string, o = {}) =>
			downloadResult(ctx, jobId, url, { refreshUrl: refresher(ctx, jobId, o.signal), ...o }),
		),
		downloadToBuffer: guard((jobId: string, url: string, o = {}) =>
			downloadToBuffer(ctx, jobId, url, { refreshUrl: refresher(ctx, jobId, o.signal), ...o }),
		),
		generate: guard(generate),
	};
}

/** Asks the job again for a fresh signed address (its 303), for an expired CDN link. */
function refresher(ctx: CoreContext, jobId: string, signal?: AbortSignal): () => Promise<string> {
	return async () => {
		const snapshot = await getJob(ctx, jobId, { signal });
		if (!isComplete(snapshot)) {
			throw new RenderServiceError(
				'cdn',
				`Job ${jobId}: the result link expired and the job no longer offers a new one.`,
				{
					jobId,
					hint: 'Run the job again.',
				},
			);
		}
		return snapshot.resultUrl;
	};
}

async function runGenerate(
	ctx: CoreContext,
	args: {
		submit: RenderClient['submit'];
		request: Parameters<RenderClient['generate']>[0];
		options: NonNullable<Parameters<RenderClient['generate']>[1]>;
	},
): Promise<GenerateOutcome> {
	const { options } = args;
	const job = await args.submit(args.request, {
		signal: options.signal,
		idempotencyKey: options.idempotencyKey,
	});
	options.onSubmitted?.(job);
	const outcome = await waitForJob(ctx, job.jobId, options);
	if (outcome.kind === 'timed_out') {
		const { kind, lastStatus, waitedMs, cancelled } = outcome;
		return { kind, job, lastStatus, waitedMs, cancelled };
	}
	const file = await downloadResult(ctx, job.jobId, outcome.resultUrl, {
		signal: options.signal,
		refreshUrl: refresher(ctx, job.jobId, options.signal),
	});
	return { kind: 'complete', job, file, waitedMs: outcome.waitedMs, via: outcome.via };
}

/** Removes secrets from an error's message, hint and body, whatever threw it. */
export function scrubError(error: unknown, secrets: readonly string[]): unknown {
	if (secrets.length === 0 || !(error instanceof Error)) return error;
	error.message = scrub(error.message, secrets);
	if (error.stack) error.stack = scrub(error.stack, secrets);
	if (error instanceof RenderServiceError) {
		const mutable = error as { hint?: string; body?: unknown };
		if (mutable.hint) mutable.hint = scrub(mutable.hint, secrets);
		if (mutable.body !== undefined) {
			try {
				mutable.body = JSON.parse(scrub(JSON.stringify(mutable.body), secrets)) as unknown;
			} catch {
				mutable.body = undefined;
			}
		}
	}
	return error;
}
