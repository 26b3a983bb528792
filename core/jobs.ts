/** One look at a job (`GET /jobs/{id}`, the 303 read not followed) and cancellation. */
import type { CoreContext } from './context';
import { BadResponseError } from './errors';
import {
	errorForResponse,
	isRecord,
	networkError,
	parseJson,
	resolveUrl,
	sendText,
	type RequestPurpose,
} from './http';
import { readJobFields } from './job-status';
import { parseRetryAfter } from './retry';
import { TransportError } from './transport';
import type { JobSnapshot } from './types';

export type CompleteSnapshot = Extract<JobSnapshot, { resultUrl: string }>;
export type PendingSnapshot = Exclude<JobSnapshot, { resultUrl: string }>;

/** Narrows a snapshot (the open status union defeats TypeScript's own narrowing). */
export function isComplete(snapshot: JobSnapshot): snapshot is CompleteSnapshot {
	return snapshot.status === 'complete' && 'resultUrl' in snapshot;
}

export function jobUrl(ctx: CoreContext, jobId: string): string {
	return `${ctx.asyncUrl}/jobs/${encodeURIComponent(jobId)}`;
}

function isRedirect(status: number): boolean {
	return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

export async function getJob(
	ctx: CoreContext,
	jobId: string,
	options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<JobSnapshot> {
	const url = jobUrl(ctx, jobId);
	const purpose: RequestPurpose = { action: 'checking the job', jobId };
	let res;
	try {
		res = await sendText(
			ctx,
			{
				method: 'GET',
				url,
				auth: true,
				headers: { accept: 'application/json' },
				signal: options.signal,
				timeoutMs: options.timeoutMs ?? ctx.requestTimeoutMs,
			},
			purpose,
		);
	} catch (error) {
		throw error instanceof TransportError ? networkError(ctx, error, purpose) : error;
	}
	if (isRedirect(res.status)) {
		const resultUrl = res.headers.location ? resolveUrl(res.headers.location, url) : undefined;
		if (!resultUrl) {
			throw new BadResponseError(
				`Job ${jobId}: the service said the job is complete but gave no result address.`,
				{
					jobId,
					status: res.status,
					hint: 'Try again; if it persists, contact the Render Service.',
				},
			);
		}
		return { jobId, status: 'complete', resultUrl };
	}
	if (res.status < 200 || res.status >= 300) throw errorForResponse(ctx, res, purpose);
	const body = parseJson(res.body);
	if (!isRecord(body)) {
		throw new BadResponseError(
			`Job ${jobId}: the service answered with something that is not a job record.`,
			{
				jobId,
				status: res.status,
				hint: 'Check the Async URL in the credential.',
			},
		);
	}
	const fields = readJobFields(body);
	const retryAfterMs = parseRetryAfter(res.headers['retry-after'], ctx.clock());
	if (fields.status === 'complete' && fields.resultUrl) {
		const resultUrl = resolveUrl(fields.resultUrl, url);
		if (resultUrl) return { jobId, status: 'complete', resultUrl };
	}
	return {
		jobId,
		// A complete job without a result address is reported as running: the 303 follows.
		status: fields.status === 'complete' ? 'running' : (fields.status ?? 'queued'),
		queuePosition: fields.queuePosition,
		progress: fields.progress,
		error: fields.error,
		retryAfterMs,
	};
}

/**
 * Asks the service to cancel. Resolves false when the service cannot (404/405/409/501: no
 * such route, unknown or already finished job), since the caller only wants it stopped.
 */
export async function cancelJob(
	ctx: CoreContext,
	jobId: string,
	options: { signal?: AbortSignal } = {},
): Promise<boolean> {
	const purpose: RequestPurpose = { action: 'cancelling the job', jobId };
	let res;
	try {
		res = await sendText(
			ctx,
			{
				method: 'DELETE',
				url: jobUrl(ctx, jobId),
				auth: true,
				signal: options.signal,
				timeoutMs: ctx.requestTimeoutMs,
			},
			purpose,
		);
	} catch (error) {
		throw error instanceof TransportError ? networkError(ctx, error, purpose) : error;
	}
	if (res.status >= 200 && res.status < 300) return true;
	if ([404, 405, 409, 410, 501].includes(res.status)) return false;
	throw errorForResponse(ctx, res, purpose);
}
