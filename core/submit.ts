/**
 * Submission (`POST /queue`). Every submission carries an Idempotency-Key. It is resent only
 * when that cannot create a second job, or when the same key lets the service recognise the
 * repeat:
 * - 429: the service refused it, so after `Retry-After` it is sent again;
 * - a connection error before the request left (`TransportError.sent === false`);
 * - 408 / 5xx / timeouts / drops after sending: resent with the SAME key, relying on the
 *   service's idempotency handling (documented in docs/client.md).
 * Anything else (400, 401, 404, 409, 422) is final.
 */
import { randomUUID } from 'node:crypto';
import type { CoreContext } from './context';
import { BadResponseError } from './errors';
import {
	errorForResponse,
	isTransientError,
	networkError,
	parseJson,
	resolveUrl,
	retryAfterOf,
	sendText,
	type RequestPurpose,
} from './http';
import { jobIdFromLocation, readJobFields, readJobId } from './job-status';
import { jobUrl } from './jobs';
import { retryDelay } from './retry';
import { TransportError } from './transport';
import type { GenerationRequest, SubmittedJob } from './types';
import { sleepOrAbort } from './wait-helpers';

/** Total sends of one submission, the first included. */
export const SUBMIT_MAX_ATTEMPTS = 5;

/** The JSON body of POST /queue; the input image becomes a `data:` URL in `image`. */
export function buildJobBody(request: GenerationRequest): Record<string, unknown> {
	const body: Record<string, unknown> = {
		modality: request.modality,
		family: request.family,
		model: request.model,
		task: request.task,
		format: request.format,
		prompt: request.prompt,
	};
	if (request.steps !== undefined) body.steps = request.steps;
	if (request.guidance !== undefined) body.guidance = request.guidance;
	if (request.backend) body.backend = request.backend;
	if (request.seed !== undefined) body.seed = request.seed;
	if (request.image) {
		const base64 = Buffer.from(request.image.data).toString('base64');
		body.image = `data:${request.image.mimeType || 'application/octet-stream'};base64,${base64}`;
	}
	return body;
}

export async function submitJob(
	ctx: CoreContext,
	request: GenerationRequest,
	options: { signal?: AbortSignal; idempotencyKey?: string; warnings?: string[] } = {},
): Promise<SubmittedJob> {
	const idempotencyKey = options.idempotencyKey ?? randomUUID();
	const url = `${ctx.asyncUrl}/queue`;
	const payload = JSON.stringify(buildJobBody(request));
	const purpose: RequestPurpose = { action: 'submitting the job' };
	for (let attempt = 0; ; attempt++) {
		let failure: unknown;
		try {
			const res = await sendText(
				ctx,
				{
					method: 'POST',
					url,
					auth: true,
					headers: {
						'content-type': 'application/json',
						accept: 'application/json',
						'idempotency-key': idempotencyKey,
					},
					body: payload,
					signal: options.signal,
					timeoutMs: ctx.requestTimeoutMs,
				},
				purpose,
			);
			if (res.status >= 200 && res.status < 300) {
				return readSubmission(
					ctx,
					res.body,
					res.headers.location,
					url,
					idempotencyKey,
					options.warnings ?? [],
				);
			}
			failure = errorForResponse(ctx, res, purpose);
		} catch (error) {
			failure = error instanceof TransportError ? networkError(ctx, error, purpose) : error;
		}
		if (!isTransientError(failure) || attempt + 1 >= SUBMIT_MAX_ATTEMPTS) throw failure;
		const delay = retryDelay(attempt, ctx.random, retryAfterOf(failure));
		ctx.logger?.debug(
			`submission attempt ${attempt + 1} failed; resending with the same Idempotency-Key in ${delay} ms`,
		);
		await sleepOrAbort(ctx, delay, options.signal);
	}
}

function readSubmission(
	ctx: CoreContext,
	text: string,
	location: string | undefined,
	queueUrl: string,
	idempotencyKey: string,
	warnings: string[],
): SubmittedJob {
	const body = parseJson(text);
	const jobId = readJobId(body) ?? jobIdFromLocation(location);
	if (!jobId) {
		throw new BadResponseError(
			'The Render Service accepted the job but its reply named no job ID.',
			{
				hint: 'Check the Async URL in the credential.',
			},
		);
	}
	const fields = readJobFields(body);
	return {
		jobId,
		status: fields.status ?? 'queued',
		queuePosition: fields.queuePosition,
		jobUrl: (location && resolveUrl(location, queueUrl)) || jobUrl(ctx, jobId),
		idempotencyKey,
		submittedAt: ctx.clock(),
		warnings,
	};
}
