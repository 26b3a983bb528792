/** Errors for jobs that ended badly, shared by polling and SSE. */
import { JobCancelledError, JobFailedError, scrub } from './errors';

export function jobFailed(
	jobId: string,
	error: { code?: string; message?: string } | undefined,
	secrets: readonly string[],
): JobFailedError {
	const serviceMessage = error?.message ? scrub(error.message, secrets) : undefined;
	const serviceCode = error?.code ? scrub(error.code, secrets) : undefined;
	const detail = serviceMessage ? `: ${serviceMessage}` : '';
	const code = serviceCode ? ` (${serviceCode})` : '';
	return new JobFailedError(`Job ${jobId} failed on the Render Service${code}${detail}`, {
		jobId,
		serviceCode,
		serviceMessage,
		hint: 'Check the prompt and parameters; the service message above says what went wrong.',
	});
}

export function jobCancelled(jobId: string): JobCancelledError {
	return new JobCancelledError(`Job ${jobId} was cancelled on the Render Service.`, {
		jobId,
		hint: 'Someone or something cancelled the job; submit it again if you still need it.',
	});
}
