/**
 * Public API of the local Render Service emulator. Tests of every area start one with
 * `createEmulator({ port: 0 })` and drive it through these types; docs/openapi.yaml is the
 * wire contract it serves.
 */
import type { Model } from '../core/types';

export type { Model };

/** Routes that counters and fault injection are keyed by. */
export type EmulatorRoute = 'models' | 'queue' | 'job' | 'events' | 'cancel' | 'cdn';

export const EMULATOR_ROUTES: readonly EmulatorRoute[] = [
	'models',
	'queue',
	'job',
	'events',
	'cancel',
	'cdn',
];

/** Faults for one route. Every field is optional; absent means "no fault". */
export interface RouteFault {
	/** Probability (0..1) that a request answers `errorStatus`. Uses the seeded PRNG. */
	errorRate?: number;
	/** Status for `errorRate` and `errorBurst` failures. Default 503. */
	errorStatus?: number;
	/** The next N requests fail with `errorStatus` (counted down). */
	errorBurst?: number;
	/** The next N requests answer 429 with `Retry-After`. */
	rateLimitBurst?: number;
	/** `Retry-After` seconds on the 429s of `rateLimitBurst`. Default 1. */
	retryAfterSeconds?: number;
	/** Added latency before the route answers, in ms. */
	latencyMs?: number;
}

export interface FaultConfig {
	models?: RouteFault;
	queue?: RouteFault;
	job?: RouteFault;
	events?: RouteFault;
	cancel?: RouteFault;
	cdn?: RouteFault;
	/** The server closes each SSE connection after sending N events. */
	sseDropAfterEvents?: number;
	/** SSE opens (200 + headers) and then sends nothing: no events, no heartbeats. */
	sseSilent?: boolean;
	/** The events route answers 404 like a service without SSE. */
	sseDisabled?: boolean;
	/** The CDN drops the connection after N body bytes, once per job, so a Range resume works. */
	cdnTruncateAfterBytes?: number;
	/** The CDN sends the body at about this rate. */
	cdnSlowBytesPerSecond?: number;
}

export interface EmulatorOptions {
	/** Default '127.0.0.1'. */
	host?: string;
	/** Catalogue port; 0 (default) picks an ephemeral port. */
	port?: number;
	/** Queue tier port. Default: 0 when `port` is 0, else `port + 1`. */
	asyncPort?: number;
	/** CDN port. Default: 0 when `port` is 0, else `port + 2`. */
	cdnPort?: number;
	/** Accepted bearer keys. Default `[DEMO_API_KEY]`. */
	apiKeys?: string[];
	/** The catalogue, or a path to a JSON file (`{ models: [...] }` or `[...]`). Default: built-in. */
	models?: Model[] | string;
	/** Minimum time a job stays queued, in ms. Default 300. */
	queueMs?: number;
	/** Run duration once a worker picks the job, in ms. Default 1500. */
	runMs?: number;
	/** Worker pool size. Default 4. Jobs queue behind it, so `queue_position` is real. */
	concurrency?: number;
	/** SSE heartbeat comment interval, in ms. Default 15000. */
	heartbeatMs?: number;
	/** `Retry-After` seconds on `GET /jobs/{id}` while not complete. Default 1. */
	retryAfterSeconds?: number;
	/** `retry:` field of SSE streams, in ms. Default 1000. */
	sseRetryMs?: number;
	/** Lifetime of signed CDN URLs, in ms. Default 600000 (10 minutes). */
	cdnUrlTtlMs?: number;
	/** Pad every result file to about this many bytes (memory benchmark). Default: no padding. */
	resultPadBytes?: number;
	/** Request body cap in bytes; larger bodies get 413. Default 15 MiB. */
	maxBodyBytes?: number;
	/** Per-key token bucket over all authenticated routes -> 429 + Retry-After. Off by default. */
	rateLimit?: { capacity: number; refillPerSecond: number };
	/** Fault injection; replace at run time with `setFaults`. */
	faults?: FaultConfig;
	/** Seed of the PRNG behind `errorRate`. Default 1. */
	seed?: number;
	/** Enable the HTTP admin routes under /__admin on the async origin. Default false. */
	admin?: boolean;
	/** Receives one line per request. Never contains the API key. */
	log?: (line: string) => void;
}

export interface EmulatorCounters {
	/** Requests per route, counted before auth and faults. */
	requests: Record<EmulatorRoute, number>;
	jobsCreated: number;
	idempotentReplays: number;
	/** Requests to the CDN that carried an Authorization header (each refused with 400). */
	cdnAuthorizationHeaders: number;
	/** SSE connections opened (200 text/event-stream). */
	sseConnections: number;
	/** Requests answered 401. */
	unauthorized: number;
	/** Requests answered 429 (rate limit or injected). */
	rateLimited: number;
	/** 5xx answers injected by faults. */
	injectedErrors: number;
	/** Jobs cancelled (by DELETE, `cancelJob` or the `[cancel]` prompt token). */
	jobsCancelled: number;
}

export type EmulatorJobStatus = 'queued' | 'running' | 'complete' | 'failed' | 'cancelled';

/** The body of POST /queue after validation. */
export interface JobRequest {
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
	/** `data:` URL for i2i. */
	image?: string;
}

export interface JobView {
	id: string;
	status: EmulatorJobStatus;
	request: JobRequest;
	/** Epoch ms. */
	createdAt: number;
	startedAt?: number;
	completedAt?: number;
	progress: number;
	queuePosition?: number;
	error?: { code: string; message: string };
}

export interface RenderedResult {
	data: Buffer;
	mimeType: string;
	extension: string;
}

export interface RunningEmulator {
	/** Catalogue origin, e.g. http://127.0.0.1:PORT (no trailing slash). */
	baseUrl: string;
	/** Queue tier origin. */
	asyncUrl: string;
	/** CDN origin. */
	cdnUrl: string;
	/** The first accepted key. */
	apiKey: string;
	counters(): EmulatorCounters;
	resetCounters(): void;
	/** Replaces the whole fault config (burst counters start afresh). */
	setFaults(faults: FaultConfig): void;
	/** `queueMs` applies to jobs submitted afterwards, `runMs` to jobs that start afterwards. */
	setTiming(t: { queueMs?: number; runMs?: number }): void;
	jobs(): JobView[];
	/** The exact bytes the CDN serves for a job, once it is complete. */
	expectedResult(jobId: string): { data: Buffer; mimeType: string } | undefined;
	/** Fails a queued or running job now. */
	failJob(jobId: string, code?: string, message?: string): void;
	/** Cancels a queued or running job now. */
	cancelJob(jobId: string): void;
	/** Every signed URL issued so far answers 403 from now on. */
	expireCdnUrls(): void;
	/** Closes the three servers and every open SSE stream, clears timers. */
	close(): Promise<void>;
}
