/**
 * Typed errors of the client core. Every message is written for a person building a
 * workflow: what happened, and in `hint` what to change. Messages never contain the API key;
 * `scrub` removes configured secrets from any text that came from elsewhere.
 */

export type RenderErrorCode =
	| 'unauthorized'
	| 'validation'
	| 'not_found'
	| 'conflict'
	| 'rate_limited'
	| 'job_failed'
	| 'job_cancelled'
	| 'timeout'
	| 'aborted'
	| 'network'
	| 'cdn'
	| 'service'
	| 'bad_response';

export interface RenderErrorOptions {
	status?: number;
	jobId?: string;
	hint?: string;
	/** Parsed error body of the service, already scrubbed. */
	body?: unknown;
	cause?: unknown;
}

export class RenderServiceError extends Error {
	readonly code: RenderErrorCode;
	readonly status?: number;
	readonly jobId?: string;
	/** What the user should change, for n8n's `description` and Node-RED's status. */
	readonly hint?: string;
	readonly body?: unknown;

	constructor(code: RenderErrorCode, message: string, options: RenderErrorOptions = {}) {
		super(message);
		this.name = 'RenderServiceError';
		this.code = code;
		this.status = options.status;
		this.jobId = options.jobId;
		this.hint = options.hint;
		this.body = options.body;
		if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
	}
}

export class UnauthorizedError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('unauthorized', message, options);
		this.name = 'UnauthorizedError';
	}
}

export class ValidationError extends RenderServiceError {
	/** The request field to change, e.g. "steps". */
	readonly field?: string;
	constructor(message: string, options: RenderErrorOptions & { field?: string } = {}) {
		super('validation', message, options);
		this.name = 'ValidationError';
		this.field = options.field;
	}
}

export class NotFoundError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('not_found', message, options);
		this.name = 'NotFoundError';
	}
}

export class ConflictError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('conflict', message, options);
		this.name = 'ConflictError';
	}
}

export class RateLimitedError extends RenderServiceError {
	readonly retryAfterMs?: number;
	constructor(message: string, options: RenderErrorOptions & { retryAfterMs?: number } = {}) {
		super('rate_limited', message, options);
		this.name = 'RateLimitedError';
		this.retryAfterMs = options.retryAfterMs;
	}
}

export class JobFailedError extends RenderServiceError {
	/** The service's own error code and message for the job. */
	readonly serviceCode?: string;
	readonly serviceMessage?: string;
	constructor(
		message: string,
		options: RenderErrorOptions & { serviceCode?: string; serviceMessage?: string } = {},
	) {
		super('job_failed', message, options);
		this.name = 'JobFailedError';
		this.serviceCode = options.serviceCode;
		this.serviceMessage = options.serviceMessage;
	}
}

export class JobCancelledError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('job_cancelled', message, options);
		this.name = 'JobCancelledError';
	}
}

export class TimeoutError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('timeout', message, options);
		this.name = 'TimeoutError';
	}
}

export class AbortedError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('aborted', message, options);
		this.name = 'AbortedError';
	}
}

export class NetworkError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('network', message, options);
		this.name = 'NetworkError';
	}
}

export class CdnError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('cdn', message, options);
		this.name = 'CdnError';
	}
}

/** 5xx and other unexpected statuses. */
export class ServiceError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('service', message, options);
		this.name = 'ServiceError';
	}
}

/** A reply the client cannot read (not JSON, no job ID, oversized). */
export class BadResponseError extends RenderServiceError {
	constructor(message: string, options: RenderErrorOptions = {}) {
		super('bad_response', message, options);
		this.name = 'BadResponseError';
	}
}

/** Replaces every configured secret in `text` with "[redacted]". */
export function scrub(text: string, secrets: readonly string[] = []): string {
	let out = text;
	for (const secret of secrets) {
		if (secret.length >= 4) out = out.split(secret).join('[redacted]');
	}
	return out;
}
