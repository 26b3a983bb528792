/**
 * The one request path of the core: sends through the transport, reads JSON, and turns
 * statuses into typed errors whose messages a workflow builder understands. Every message
 * passes `scrub`, so text echoed by the service cannot leak the key.
 */
import type { CoreContext } from './context';
import {
	AbortedError,
	BadResponseError,
	ConflictError,
	NetworkError,
	NotFoundError,
	RateLimitedError,
	RenderServiceError,
	ServiceError,
	UnauthorizedError,
	ValidationError,
	scrub,
} from './errors';
import { parseRetryAfter } from './retry';
import { TransportError, type TransportRequest, type TransportResponse } from './transport';

/** What a request was for, so errors can say it in the user's words. */
export interface RequestPurpose {
	/** e.g. "listing models", "checking job abc". */
	action: string;
	jobId?: string;
}

export function jobPrefix(jobId: string | undefined): string {
	return jobId ? `Job ${jobId}: ` : '';
}

/**
 * Largest API reply read, in bytes. Model lists and job records are a few kB; anything far
 * larger is not the service, and must not fill memory.
 */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * Sends a request expecting a text body. Throws TransportError, AbortedError, or
 * BadResponseError for a reply larger than MAX_REPLY_BYTES.
 */
export async function sendText(
	ctx: CoreContext,
	req: Omit<TransportRequest, 'responseType'>,
	purpose: RequestPurpose,
): Promise<TransportResponse<string>> {
	try {
		return await ctx.transport.request({
			maxBytes: MAX_REPLY_BYTES,
			...req,
			responseType: 'text',
		});
	} catch (error) {
		const failure = asTransportFailure(ctx, error, req.signal, purpose);
		if (failure instanceof TransportError && failure.code === 'ETOOLARGE') {
			throw new BadResponseError(
				`${jobPrefix(purpose.jobId)}the reply of the Render Service while ${purpose.action} was too large (over ${MAX_REPLY_BYTES} bytes), so it was not read.`,
				{
					jobId: purpose.jobId,
					hint: 'Check the Base URL / Async URL in the credential: they should point at the Render Service.',
				},
			);
		}
		throw failure;
	}
}

/** Normalises anything a transport threw: abort wins, then TransportError, else a sent failure. */
export function asTransportFailure(
	ctx: CoreContext,
	error: unknown,
	signal: AbortSignal | undefined,
	purpose: RequestPurpose,
): TransportError | AbortedError {
	if (signal?.aborted) return abortedError(purpose.jobId);
	if (error instanceof AbortedError) return error;
	if (error instanceof TransportError) return error;
	const message = error instanceof Error ? error.message : String(error);
	return new TransportError(scrub(message, ctx.secrets), { code: 'unknown', sent: true });
}

export function abortedError(jobId?: string): AbortedError {
	return new AbortedError(`${jobPrefix(jobId)}stopped because the execution was cancelled.`, {
		jobId,
		hint: jobId ? `The job may still run on the service; its ID is ${jobId}.` : undefined,
	});
}

export function networkError(ctx: CoreContext, error: TransportError, purpose: RequestPurpose) {
	const { reason, hint } = describeFailure(error);
	return new NetworkError(
		`${jobPrefix(purpose.jobId)}could not reach the Render Service while ${purpose.action} (${scrub(reason, ctx.secrets)}).`,
		{
			jobId: purpose.jobId,
			// A clean copy: a transport's own `cause` may hold request options with the key.
			cause: new TransportError(scrub(error.message, ctx.secrets), {
				code: error.code,
				sent: error.sent,
			}),
			hint: hint ?? 'Check the Base URL / Async URL in the credential and your network connection.',
		},
	);
}

const TLS_CODES =
	/^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_)/;

/** Words for the common connection failures; OpenSSL's own text is long and cryptic. */
function describeFailure(error: TransportError): { reason: string; hint?: string } {
	const code = error.code;
	if (code === 'ECONNREFUSED') return { reason: `connection refused (${code})` };
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { reason: `host not found (${code})` };
	if (TLS_CODES.test(code) || /SSL routines|wrong version number/i.test(error.message)) {
		return {
			reason: `the TLS (https) connection failed (${code})`,
			hint: 'Check the Base URL / Async URL in the credential: a server without TLS needs http://, and an https server needs a trusted certificate.',
		};
	}
	return { reason: error.message.split('\n')[0]!.trim() };
}

export function parseJson(text: string): unknown {
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads `{error:{code,message,field}}` and the other common error shapes. */
export function readServiceError(body: unknown): {
	code?: string;
	message?: string;
	field?: string;
} {
	if (!isRecord(body)) return {};
	const inner = body.error;
	if (isRecord(inner)) {
		return {
			code: str(inner.code) ?? str(inner.type),
			message: str(inner.message) ?? str(inner.detail),
			field: str(inner.field) ?? str(inner.param),
		};
	}
	return {
		code: str(body.code),
		message: str(body.message) ?? str(body.detail) ?? str(inner),
		field: str(body.field) ?? str(body.param),
	};
}

/** Deep copy of a parsed body with every secret removed from its strings. */
export function scrubBody(body: unknown, secrets: readonly string[]): unknown {
	if (body === undefined) return undefined;
	try {
		return JSON.parse(scrub(JSON.stringify(body), secrets)) as unknown;
	} catch {
		return undefined;
	}
}

const FIELD_LABELS: Record<string, string> = {
	prompt: 'Prompt',
	steps: 'Steps',
	guidance: 'Guidance',
	format: 'Format',
	backend: 'Backend',
	task: 'Task',
	model: 'Model',
	family: 'Family',
	modality: 'Modality',
	seed: 'Seed',
	image: 'Input Image',
};

export function fieldLabel(field: string): string {
	return FIELD_LABELS[field] ?? field;
}

/** Maps a non-success response to the typed error the user sees. */
export function errorForResponse(
	ctx: CoreContext,
	res: TransportResponse<string | unknown>,
	purpose: RequestPurpose,
): RenderServiceError {
	const status = res.status;
	const body = scrubBody(
		typeof res.body === 'string' ? parseJson(res.body) : undefined,
		ctx.secrets,
	);
	const info = readServiceError(body);
	const said = info.message ? ` The service said: "${scrub(info.message, ctx.secrets)}".` : '';
	const prefix = jobPrefix(purpose.jobId);
	const common = { status, jobId: purpose.jobId, body };

	if (status === 401 || status === 403) {
		return new UnauthorizedError(
			`${prefix}the Render Service refused the API key while ${purpose.action} (HTTP ${status}).${said}`,
			{ ...common, hint: 'Check the API key in the Render Service credential.' },
		);
	}
	if (status === 400 || status === 422 || status === 413) {
		const field = info.field;
		const hint = field
			? `Change ${fieldLabel(field)} and run again.`
			: status === 413
				? 'Use a smaller input image.'
				: 'Check the node parameters and run again.';
		return new ValidationError(
			`${prefix}the Render Service rejected the request while ${purpose.action} (HTTP ${status}).${said}`,
			{ ...common, field, hint },
		);
	}
	if (status === 404) {
		return new NotFoundError(
			purpose.jobId
				? `${prefix}the Render Service does not know this job (HTTP 404).${said}`
				: `The Render Service address was not found while ${purpose.action} (HTTP 404).${said}`,
			{
				...common,
				hint: purpose.jobId
					? 'The job ID may be wrong or the job may have expired; submit it again.'
					: 'Check the Base URL / Async URL in the credential.',
			},
		);
	}
	if (status === 409) {
		return new ConflictError(`${prefix}the Render Service reported a conflict (HTTP 409).${said}`, {
			...common,
			hint: 'The job may already be finished or cancelled.',
		});
	}
	if (status === 429) {
		const retryAfterMs = parseRetryAfter(res.headers['retry-after'], ctx.clock());
		return new RateLimitedError(
			`${prefix}the Render Service is limiting the request rate (HTTP 429) while ${purpose.action}.${said}`,
			{ ...common, retryAfterMs, hint: 'Wait a little, or lower the concurrency of the node.' },
		);
	}
	if (status >= 300 && status < 400) {
		return new BadResponseError(
			`${prefix}unexpected redirect (HTTP ${status}) while ${purpose.action}.`,
			{ ...common, hint: 'Check the Base URL / Async URL in the credential.' },
		);
	}
	const error = new ServiceError(
		`${prefix}the Render Service answered HTTP ${status} while ${purpose.action}.${said}`,
		{
			...common,
			hint:
				status >= 500
					? 'The service has a temporary problem; try again later.'
					: 'Check the Base URL / Async URL in the credential.',
		},
	);
	const hint = parseRetryAfter(res.headers['retry-after'], ctx.clock());
	if (hint !== undefined) retryHints.set(error, hint);
	return error;
}

// A 503 may carry Retry-After too; ServiceError has no field for it, so it is kept aside.
const retryHints = new WeakMap<object, number>();

/** True for errors a retry may cure: rate limits, 408/5xx, network trouble. */
export function isTransientError(error: unknown): boolean {
	if (error instanceof RateLimitedError || error instanceof NetworkError) return true;
	if (error instanceof TransportError) return true;
	if (error instanceof ServiceError && error.status !== undefined) {
		return (
			error.status === 408 || (error.status >= 500 && error.status !== 501 && error.status !== 505)
		);
	}
	return false;
}

export function retryAfterOf(error: unknown): number | undefined {
	if (error instanceof RateLimitedError) return error.retryAfterMs;
	return typeof error === 'object' && error !== null ? retryHints.get(error) : undefined;
}

/** Resolves `location` against `base`; undefined when unreadable. */
export function resolveUrl(location: string, base: string): string | undefined {
	try {
		return new URL(location, base).toString();
	} catch {
		return undefined;
	}
}
