/**
 * Turns whatever a wait or request threw into what Node-RED shows: a full message for the
 * Catch node and the debug sidebar (with the job ID and the hint), and a short reason for the
 * red status ring. Every text passes through `scrub` so the API key can never leak.
 */
import { scrub } from '../../core/errors';
import type { RenderErrorCode } from '../../core/errors';
import type { Translate } from './i18n';

export interface ReportedError {
	error: Error;
	/** Short text for the status ring. */
	reason: string;
	jobId?: string;
}

const SHORT: Record<string, string> = {
	unauthorized: 'unauthorized',
	validation: 'invalid',
	not_found: 'notFound',
	conflict: 'conflict',
	rate_limited: 'rateLimited',
	job_failed: 'jobFailed',
	job_cancelled: 'jobCancelled',
	timeout: 'timedOut',
	aborted: 'aborted',
	network: 'network',
	cdn: 'cdn',
	service: 'service',
	bad_response: 'badResponse',
};

export function reportError(
	err: unknown,
	t: Translate,
	prefix: string,
	secrets: readonly string[],
	jobId?: string,
): ReportedError {
	const core = asRenderError(err);
	const id = core?.jobId ?? jobId;
	let message = err instanceof Error ? err.message : String(err);
	if (core?.hint && !message.includes(core.hint)) message = `${message} ${core.hint}`;
	if (id && !message.includes(id)) message = `${message} (job ${id})`;
	const error = new Error(scrub(message, secrets));
	error.name = core?.name ?? (err instanceof Error ? err.name : 'Error');
	Object.assign(error, { code: core?.code, jobId: id, status: core?.status });
	const short = core ? SHORT[core.code] : undefined;
	const reason = short ? t(`${prefix}.reasons.${short}`) : shorten(error.message);
	return { error, reason: scrub(reason, secrets), jobId: id };
}

interface RenderErrorLike extends Error {
	code: RenderErrorCode;
	jobId?: string;
	hint?: string;
	status?: number;
}

/**
 * Duck-typed rather than `instanceof`: each node file bundles its own copy of the core, so an
 * error thrown by another bundle's client is not an instance of this bundle's class.
 */
function asRenderError(err: unknown): RenderErrorLike | undefined {
	if (!(err instanceof Error)) return undefined;
	const code = (err as { code?: unknown }).code;
	return typeof code === 'string' && code in SHORT ? (err as RenderErrorLike) : undefined;
}

function shorten(text: string): string {
	return text.length > 32 ? `${text.slice(0, 31)}…` : text;
}
