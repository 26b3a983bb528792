/** Everything the route handlers share, built once per emulator from its options. */
import type { ServerResponse } from 'node:http';
import { loadCatalogue } from './catalogue';
import { emptyCounters } from './counters';
import { Faults, seededRandom } from './faults';
import { IdempotencyStore } from './idempotency';
import { JobStore } from './jobs';
import { RateLimiter } from './rate-limit';
import { ResultCache } from './results';
import { UrlSigner } from './signing';
import type { EmulatorCounters, EmulatorOptions, Model } from './types';

export const DEMO_API_KEY = 'rs_demo_0123456789abcdef';

export interface Settings {
	host: string;
	heartbeatMs: number;
	retryAfterSeconds: number;
	sseRetryMs: number;
	maxBodyBytes: number;
	admin: boolean;
}

export interface Context {
	settings: Settings;
	apiKeys: ReadonlySet<string>;
	models: Model[];
	store: JobStore;
	results: ResultCache;
	faults: Faults;
	limiter: RateLimiter;
	signer: UrlSigner;
	idempotency: IdempotencyStore;
	counters: EmulatorCounters;
	/** Open SSE responses, ended on close. */
	streams: Set<ServerResponse>;
	/** Timers owned by responses (heartbeats, slow CDN writes), cleared on close. */
	timers: Set<NodeJS.Timeout>;
	/** Jobs whose CDN body was already truncated by the `cdnTruncateAfterBytes` fault. */
	truncatedJobs: Set<string>;
	asyncUrl: string;
	log: (line: string) => void;
}

export function createContext(options: EmulatorOptions): Context {
	const results = new ResultCache(options.resultPadBytes);
	const counters = emptyCounters();
	const store = new JobStore({
		queueMs: options.queueMs ?? 300,
		runMs: options.runMs ?? 1500,
		concurrency: Math.max(1, options.concurrency ?? 4),
		prepareResult: (job) => void results.get(job.request),
		onCancel: () => void counters.jobsCancelled++,
	});
	return {
		settings: {
			host: options.host ?? '127.0.0.1',
			heartbeatMs: options.heartbeatMs ?? 15_000,
			retryAfterSeconds: options.retryAfterSeconds ?? 1,
			sseRetryMs: options.sseRetryMs ?? 1000,
			maxBodyBytes: options.maxBodyBytes ?? 15 * 1024 * 1024,
			admin: options.admin ?? false,
		},
		apiKeys: new Set(options.apiKeys?.length ? options.apiKeys : [DEMO_API_KEY]),
		models: loadCatalogue(options.models),
		store,
		results,
		faults: new Faults(options.faults, seededRandom(options.seed ?? 1)),
		limiter: new RateLimiter(options.rateLimit),
		signer: new UrlSigner(options.cdnUrlTtlMs ?? 10 * 60 * 1000),
		idempotency: new IdempotencyStore(),
		counters,
		streams: new Set(),
		timers: new Set(),
		truncatedJobs: new Set(),
		asyncUrl: '',
		log: options.log ?? (() => undefined),
	};
}

/** The signed result URL of a complete job (fresh each time it is asked for). */
export function resultUrl(ctx: Context, jobId: string): string {
	const job = ctx.store.get(jobId);
	const ext = job?.request.modality === 'video' ? 'gif' : 'png';
	return ctx.signer.sign(`${jobId}.${ext}`);
}
