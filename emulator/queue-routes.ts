/** POST /queue, GET /jobs/{id} and DELETE /jobs/{id} on the async origin. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyId } from './auth';
import { parseJsonObject, readBody } from './body';
import { type Context, resultUrl } from './context';
import { HttpError, sendJson } from './errors';
import { guard } from './guard';
import { idempotencyKey } from './idempotency';
import { type Job, TERMINAL } from './jobs';
import { validateJobRequest } from './validate';

export async function submitJob(
	ctx: Context,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const owner = keyId(await guard(ctx, 'queue', req));
	const key = idempotencyKey(req.headers['idempotency-key']);
	const body = parseJsonObject(await readBody(req, ctx.settings.maxBodyBytes));
	if (key !== undefined) {
		const found = ctx.idempotency.lookup(owner, key, body);
		if (found.kind === 'conflict') {
			throw new HttpError(
				409,
				'idempotency_conflict',
				'This Idempotency-Key was already used with a different body.',
			);
		}
		const job = found.kind === 'replay' ? ctx.store.get(found.jobId) : undefined;
		if (job) {
			ctx.counters.idempotentReplays++;
			sendAccepted(ctx, res, job, { 'Idempotent-Replayed': 'true' });
			return;
		}
	}
	const request = validateJobRequest(body, ctx.models);
	const job = ctx.store.create(request, owner);
	ctx.counters.jobsCreated++;
	if (key !== undefined) ctx.idempotency.remember(owner, key, body, job.id);
	const model = ctx.models.find((m) => m.family === request.family && m.model === request.model);
	sendAccepted(ctx, res, job, model?.status === 'deprecated' ? { Deprecation: 'true' } : {});
}

function sendAccepted(
	ctx: Context,
	res: ServerResponse,
	job: Job,
	headers: Record<string, string>,
): void {
	const body: Record<string, unknown> = { id: job.id, status: job.status };
	const position = ctx.store.queuePosition(job);
	if (position !== undefined) body.queue_position = position;
	sendJson(res, 202, body, { Location: jobUrl(ctx, job.id), ...headers });
}

export function jobUrl(ctx: Context, id: string): string {
	return `${ctx.asyncUrl}/jobs/${encodeURIComponent(id)}`;
}

/** A job of another key is as unknown as a job that never existed. */
export function ownJob(ctx: Context, id: string, apiKey: string): Job {
	const job = ctx.store.get(id);
	if (!job || job.owner !== keyId(apiKey))
		throw new HttpError(404, 'job_not_found', `No job with ID "${id}".`);
	return job;
}

export async function getJob(
	ctx: Context,
	req: IncomingMessage,
	res: ServerResponse,
	id: string,
): Promise<void> {
	const job = ownJob(ctx, id, await guard(ctx, 'job', req));
	if (job.status === 'complete') {
		const url = resultUrl(ctx, job.id);
		sendJson(res, 303, { id: job.id, status: 'complete', url }, { Location: url });
		return;
	}
	const body: Record<string, unknown> = { id: job.id, status: job.status };
	const position = ctx.store.queuePosition(job);
	if (position !== undefined) body.queue_position = position;
	if (job.status === 'running') body.progress = job.progress;
	if (job.error) body.error = job.error;
	const headers: Record<string, string> = TERMINAL.has(job.status)
		? {}
		: { 'Retry-After': String(ctx.settings.retryAfterSeconds) };
	sendJson(res, 200, body, headers);
}

export async function cancelJob(
	ctx: Context,
	req: IncomingMessage,
	res: ServerResponse,
	id: string,
): Promise<void> {
	const job = ownJob(ctx, id, await guard(ctx, 'cancel', req));
	if (job.status === 'complete' || job.status === 'failed') {
		throw new HttpError(409, 'job_not_cancellable', `Job "${id}" is already ${job.status}.`);
	}
	ctx.store.cancel(job);
	sendJson(res, 200, { id: job.id, status: job.status, error: job.error });
}
