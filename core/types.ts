/**
 * Shapes of the Render Service (spec §2) and of what the client core hands to the engines.
 * Field names of the wire format stay snake_case as the service sends them.
 */

/** Model statuses of spec §3.1. Unknown future values are kept as strings. */
export type ModelStatus = 'active' | 'beta' | 'coming_soon' | 'deprecated' | (string & {});

/** `info` of a model (spec §2.1); presence of each field varies by model. */
export interface ModelInfo {
	/** Size label such as "12B". */
	parameters?: string;
	/** Present on models with adjustable steps; implies `guidance_range`. */
	default_steps?: number;
	/** Lower and upper guidance bound. */
	guidance_range?: [number, number];
	/** Present on models whose step count is fixed. */
	fixed_steps?: number;
}

/** One element of the `models` array of `GET /models`. */
export interface Model {
	family: string;
	model: string;
	modality: string;
	tasks: string[];
	backends: string[];
	default_backend: string;
	formats: string[];
	status: ModelStatus;
	info: ModelInfo;
}

export interface ModelFilter {
	family?: string;
	modality?: string;
}

/** An input image for `i2i`; the core turns it into the `data:` URL the service expects. */
export interface InputImage {
	data: Uint8Array;
	/** e.g. "image/png". */
	mimeType: string;
}

/** What an engine asks the core to generate (spec §2.2 plus our optional fields). */
export interface GenerationRequest {
	modality: string;
	family: string;
	model: string;
	task: string;
	format: string;
	prompt: string;
	steps?: number;
	guidance?: number;
	backend?: string;
	seed?: number;
	image?: InputImage;
}

/** Job states the emulator documents; the real service may add others. */
export type JobStatus = 'queued' | 'running' | 'complete' | 'failed' | 'cancelled' | (string & {});

/** Returned by a successful submission. */
export interface SubmittedJob {
	jobId: string;
	status: JobStatus;
	queuePosition?: number;
	/** Absolute URL of the job, from the `Location` header when given. */
	jobUrl: string;
	/** The Idempotency-Key the submission carried (reuse it to resubmit safely). */
	idempotencyKey: string;
	/** Epoch ms from the injected clock. */
	submittedAt: number;
	/** Warnings the engines should show (e.g. deprecated model). */
	warnings: string[];
}

/** Progress reported while waiting, by SSE or polling. */
export interface JobProgress {
	jobId: string;
	status: JobStatus;
	queuePosition?: number;
	/** 0..1 */
	progress?: number;
	/** Which channel produced it. */
	via: 'sse' | 'poll';
}

/** One look at a job (`GET /jobs/{id}` without following the 303). */
export type JobSnapshot =
	| { jobId: string; status: 'complete'; resultUrl: string }
	| {
			jobId: string;
			status: Exclude<JobStatus, 'complete'>;
			queuePosition?: number;
			progress?: number;
			error?: { code?: string; message?: string };
			/** Server's `Retry-After` hint in ms, if any. */
			retryAfterMs?: number;
	  };

export type WaitMode = 'auto' | 'sse' | 'poll';

/** What to do when the overall wait timeout elapses. */
export type OnTimeout = 'fail' | 'return' | 'cancel';

export interface WaitOptions {
	/** Default 'auto': SSE, falling back to polling. */
	mode?: WaitMode;
	/** Overall wait limit in ms. Default 600 000 (10 minutes). */
	timeoutMs?: number;
	/** Default 'fail': throw a TimeoutError that names the job ID. */
	onTimeout?: OnTimeout;
	signal?: AbortSignal;
	onProgress?: (progress: JobProgress) => void;
}

/** How a wait ended without throwing. Failures throw JobFailedError / JobCancelledError. */
export type WaitOutcome =
	| { kind: 'complete'; jobId: string; resultUrl: string; waitedMs: number; via: 'sse' | 'poll' }
	| {
			kind: 'timed_out';
			jobId: string;
			lastStatus: JobStatus;
			waitedMs: number;
			cancelled: boolean;
	  };

/** A downloaded result. `stream` is consumed once; resumption after a drop is built in. */
export interface DownloadedFile {
	jobId: string;
	stream: NodeJS.ReadableStream & AsyncIterable<Buffer>;
	mimeType: string;
	/** From Content-Length when the CDN sends it. */
	size?: number;
	/** `<jobId>.<ext>` from the MIME type. */
	fileName: string;
	/** The CDN URL it came from (signed; contains no API key). */
	url: string;
}

/** A result collected in memory. */
export interface DownloadedBuffer extends Omit<DownloadedFile, 'stream'> {
	data: Buffer;
	size: number;
}
