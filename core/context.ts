/** What every part of the core shares: the injected seams plus resolved options. */
import type { RenderClientOptions } from './api';
import type { Clock, Sleep, Transport } from './transport';
import { defaultClock, defaultSleep } from './sleep';

export interface CoreContext {
	baseUrl: string;
	asyncUrl: string;
	transport: Transport;
	sleep: Sleep;
	clock: Clock;
	random: () => number;
	secrets: string[];
	cacheIdentity: string;
	catalogueTtlMs: number;
	allowedCdnHosts?: string[];
	maxDownloadBytes: number;
	/** Limit for one API request until response headers arrive. */
	requestTimeoutMs: number;
	/** Auto mode gives up on SSE when nothing (not even a heartbeat) arrives for this long. */
	sseIdleMs: number;
	logger?: { debug(message: string): void; warn(message: string): void };
}

export const DEFAULT_CATALOGUE_TTL_MS = 300_000;
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_SSE_IDLE_MS = 45_000;

export function trimSlash(url: string): string {
	return url.replace(/\/+$/, '');
}

export function createContext(options: RenderClientOptions): CoreContext {
	return {
		baseUrl: trimSlash(options.baseUrl),
		asyncUrl: trimSlash(options.asyncUrl),
		transport: options.transport,
		sleep: options.sleep ?? defaultSleep,
		clock: options.clock ?? defaultClock,
		random: options.random ?? Math.random,
		secrets: (options.secrets ?? []).filter((s) => typeof s === 'string' && s.length > 0),
		cacheIdentity: options.cacheIdentity ?? '',
		catalogueTtlMs: options.catalogueTtlMs ?? DEFAULT_CATALOGUE_TTL_MS,
		allowedCdnHosts: normalizeHosts(options.allowedCdnHosts),
		maxDownloadBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
		requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
		sseIdleMs: options.sseIdleMs ?? DEFAULT_SSE_IDLE_MS,
		logger: options.logger,
	};
}

/**
 * Host names as URL parsing reports them (lower case, no spaces), so "CDN.example.com " typed
 * into a field matches; an entry may hold several names separated by commas or spaces (one
 * text field in an editor). An empty list means no restriction.
 */
export function normalizeHosts(hosts: readonly string[] | undefined): string[] | undefined {
	const list = (hosts ?? [])
		.flatMap((h) => h.split(/[\s,]+/))
		.map((h) => h.toLowerCase())
		.filter((h) => h !== '');
	return list.length > 0 ? list : undefined;
}
