/**
 * The public contract of the client core, used by the n8n nodes, the Node-RED nodes, the
 * demo and the benchmarks. `createRenderClient` (client.ts) returns a `RenderClient`.
 */
import type { Clock, Sleep, Transport } from './transport';
import type {
	DownloadedBuffer,
	DownloadedFile,
	GenerationRequest,
	JobSnapshot,
	Model,
	ModelFilter,
	SubmittedJob,
	WaitOptions,
	WaitOutcome,
} from './types';

export interface RenderClientOptions {
	/** Synchronous base address ({base_url}), for `/models`. */
	baseUrl: string;
	/** Queue base address ({async_url}), for `/queue` and `/jobs/{id}`. */
	asyncUrl: string;
	transport: Transport;
	/** Default: setTimeout-based, abortable. */
	sleep?: Sleep;
	/** Default: Date.now. */
	clock?: Clock;
	/** Default: Math.random. Used for jitter only. */
	random?: () => number;
	/**
	 * Strings that must never appear in an error or log (the API key). The core scrubs them
	 * from every message it builds, including text echoed by the service.
	 */
	secrets?: string[];
	/**
	 * Identity of the credential for the catalogue cache (e.g. a hash of the key); the cache is
	 * keyed by base URL plus this. Never the raw key.
	 */
	cacheIdentity?: string;
	/** Catalogue cache lifetime in ms. Default 300 000 (5 minutes). */
	catalogueTtlMs?: number;
	/**
	 * When set, result downloads are only allowed from these host names (case-insensitive; an
	 * entry may list several, separated by commas or spaces). The API's own origins are always
	 * allowed. Default: any host.
	 */
	allowedCdnHosts?: string[];
	/** Largest result accepted, in bytes. Default 2 GiB. */
	maxDownloadBytes?: number;
	/** Limit for one API request until its response headers arrive, in ms. Default 30 000. */
	requestTimeoutMs?: number;
	/**
	 * Waiting by SSE: a stream silent (no event, no heartbeat) this long counts as dead; `auto`
	 * then falls back to polling and `sse` reconnects. Default 45 000.
	 */
	sseIdleMs?: number;
	/** Optional diagnostics; messages never contain secrets. */
	logger?: { debug(message: string): void; warn(message: string): void };
}

/** Read-only view of the catalogue with the helpers the editors need. */
export interface Catalogue {
	readonly models: readonly Model[];
	modalities(): string[];
	families(modality?: string): string[];
	models_of(family: string, modality?: string): Model[];
	find(family: string, model: string): Model | undefined;
	tasks(family: string, model: string): string[];
	formats(family: string, model: string): string[];
	backends(family: string, model: string): string[];
	/** `{ default }` when the model takes steps, `{ fixed }` when its steps are fixed. */
	steps(family: string, model: string): { default?: number; fixed?: number } | undefined;
	/** `[min, max]` when the model accepts guidance. */
	guidance(family: string, model: string): [number, number] | undefined;
}

export interface ValidationResult {
	model: Model;
	/** e.g. "Model x/y is deprecated; it still works but will be removed." */
	warnings: string[];
}

export interface SubmitOptions {
	signal?: AbortSignal;
	/** Reuse to resubmit the same job safely; default: a fresh random key. */
	idempotencyKey?: string;
	/** Skip catalogue validation (the caller has just validated). Default false. */
	skipValidation?: boolean;
}

export interface DownloadOptions {
	signal?: AbortSignal;
	/** Called to obtain a fresh result URL when the signed one has expired (403). */
	refreshUrl?: () => Promise<string>;
}

export interface GenerateOptions extends WaitOptions {
	idempotencyKey?: string;
	onSubmitted?: (job: SubmittedJob) => void;
}

export type GenerateOutcome =
	| {
			kind: 'complete';
			job: SubmittedJob;
			file: DownloadedFile;
			waitedMs: number;
			via: 'sse' | 'poll';
	  }
	| {
			kind: 'timed_out';
			job: SubmittedJob;
			lastStatus: string;
			waitedMs: number;
			cancelled: boolean;
	  };

export interface RenderClient {
	listModels(
		filter?: ModelFilter,
		options?: { signal?: AbortSignal; fresh?: boolean },
	): Promise<Model[]>;
	catalogue(options?: { signal?: AbortSignal; fresh?: boolean }): Promise<Catalogue>;
	/** Throws ValidationError (with `field`) before any job request is sent. */
	validate(
		request: GenerationRequest,
		options?: { signal?: AbortSignal },
	): Promise<ValidationResult>;
	submit(request: GenerationRequest, options?: SubmitOptions): Promise<SubmittedJob>;
	getJob(jobId: string, options?: { signal?: AbortSignal }): Promise<JobSnapshot>;
	wait(jobId: string, options?: WaitOptions): Promise<WaitOutcome>;
	/** Asks the service to cancel; resolves false when the service does not support it. */
	cancel(jobId: string, options?: { signal?: AbortSignal }): Promise<boolean>;
	download(jobId: string, resultUrl: string, options?: DownloadOptions): Promise<DownloadedFile>;
	downloadToBuffer(
		jobId: string,
		resultUrl: string,
		options?: DownloadOptions,
	): Promise<DownloadedBuffer>;
	/** submit + wait + download. */
	generate(request: GenerationRequest, options?: GenerateOptions): Promise<GenerateOutcome>;
}
