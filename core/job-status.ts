/**
 * Reads job records tolerantly: the spec leaves the state names and field names open, so
 * the usual synonyms map onto our five states and unknown words pass through unchanged.
 */
import { isRecord } from './http';
import type { JobStatus } from './types';

const SYNONYMS: Record<string, JobStatus> = {
	queued: 'queued',
	pending: 'queued',
	waiting: 'queued',
	submitted: 'queued',
	accepted: 'queued',
	in_queue: 'queued',
	inqueue: 'queued',
	created: 'queued',
	running: 'running',
	in_progress: 'running',
	inprogress: 'running',
	processing: 'running',
	started: 'running',
	active: 'running',
	generating: 'running',
	complete: 'complete',
	completed: 'complete',
	succeeded: 'complete',
	success: 'complete',
	successful: 'complete',
	done: 'complete',
	finished: 'complete',
	ready: 'complete',
	failed: 'failed',
	failure: 'failed',
	error: 'failed',
	errored: 'failed',
	cancelled: 'cancelled',
	canceled: 'cancelled',
	aborted: 'cancelled',
};

export function normalizeJobStatus(raw: unknown): JobStatus | undefined {
	if (typeof raw !== 'string' || raw.trim() === '') return undefined;
	const key = raw
		.trim()
		.toLowerCase()
		.replace(/[\s-]+/g, '_');
	return SYNONYMS[key] ?? key;
}

/** Like normalizeJobStatus, but only for words we recognise (event names, for instance). */
export function knownJobStatus(raw: unknown): JobStatus | undefined {
	if (typeof raw !== 'string') return undefined;
	return SYNONYMS[
		raw
			.trim()
			.toLowerCase()
			.replace(/[\s-]+/g, '_')
	];
}

function num(value: unknown): number | undefined {
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
		return Number(value);
	}
	return undefined;
}

/** Progress as a 0..1 fraction; values above 1 are read as percentages. */
export function readProgress(value: unknown): number | undefined {
	const n = num(value);
	if (n === undefined || n < 0) return undefined;
	return n > 1 ? Math.min(1, n / 100) : n;
}

export interface JobFields {
	status?: JobStatus;
	queuePosition?: number;
	progress?: number;
	error?: { code?: string; message?: string };
	resultUrl?: string;
	jobId?: string;
}

function firstString(record: Record<string, unknown>, keys: string[]): string | undefined {
	for (const key of keys) {
		const value = record[key];
		if (typeof value === 'string' && value !== '') return value;
		if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	}
	return undefined;
}

/** Job ID from a submission or job body: `id`, `job_id`, `jobId`, `request_id`, or `job.id`. */
export function readJobId(body: unknown): string | undefined {
	if (!isRecord(body)) return undefined;
	const direct = firstString(body, ['id', 'job_id', 'jobId', 'request_id', 'requestId']);
	if (direct) return direct;
	return isRecord(body.job) ? readJobId(body.job) : undefined;
}

/** Job ID from a Location such as `/jobs/abc` or `https://host/v1/jobs/abc?x=1`. */
export function jobIdFromLocation(location: string | undefined): string | undefined {
	if (!location) return undefined;
	try {
		const path = new URL(location, 'http://placeholder').pathname.replace(/\/+$/, '');
		const last = path.split('/').pop();
		return last ? decodeURIComponent(last) : undefined;
	} catch {
		return undefined;
	}
}

/** Reads status, queue position, progress, error and result URL from a job or event body. */
export function readJobFields(body: unknown): JobFields {
	if (!isRecord(body)) return {};
	const record = isRecord(body.job) ? { ...body.job, ...body } : body;
	const errorValue = record.error;
	let error: JobFields['error'];
	if (isRecord(errorValue)) {
		error = {
			code: firstString(errorValue, ['code', 'type']),
			message: firstString(errorValue, ['message', 'detail']),
		};
	} else if (typeof errorValue === 'string' && errorValue !== '') {
		error = { message: errorValue };
	}
	const output = isRecord(record.output) ? record.output : undefined;
	return {
		status: normalizeJobStatus(record.status ?? record.state ?? record.job_status),
		queuePosition: num(record.queue_position ?? record.queuePosition ?? record.position),
		progress: readProgress(record.progress ?? record.percent),
		error,
		resultUrl:
			firstString(record, ['url', 'result_url', 'resultUrl', 'location', 'output_url']) ??
			(output ? firstString(output, ['url']) : undefined),
		jobId: readJobId(record),
	};
}
