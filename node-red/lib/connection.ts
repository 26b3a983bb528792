/**
 * One place that turns connection settings into a RenderClient: the config node's runtime and
 * the editor's admin endpoint both use it, so both send requests the same way (the core's
 * client over the axios transport, bundled into the node files).
 */
import { createHash } from 'node:crypto';
import type { RenderClient } from '../../core/api';
import { createRenderClient } from '../../core/client';
import { createAxiosTransport } from '../../core/transports/axios-transport';

export interface ConnectionSettings {
	baseUrl: string;
	asyncUrl: string;
	apiKey: string;
	/** Host names results may come from, separated by commas; empty: any host. */
	allowedCdnHosts?: string;
	/** Largest result accepted, in bytes; undefined: the core's default. */
	maxDownloadBytes?: number;
}

/** Trims and drops trailing slashes, so "https://x/" and "https://x" are the same origin. */
export function normaliseUrl(value: unknown): string {
	return typeof value === 'string' ? value.trim().replace(/\/+$/, '') : '';
}

export function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

/** Megabytes from an editor field; undefined (the core's default) when empty or 0. */
export function megabytes(value: unknown): number | undefined {
	const mb = typeof value === 'number' ? value : Number.parseFloat(String(value ?? ''));
	return Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : undefined;
}

/** A stable, non-reversible name for a key, for the catalogue cache. */
export function keyIdentity(apiKey: string): string {
	return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

export function createClient(settings: ConnectionSettings): RenderClient {
	return createRenderClient({
		baseUrl: settings.baseUrl,
		asyncUrl: settings.asyncUrl,
		transport: createAxiosTransport({ apiKey: settings.apiKey }),
		secrets: [settings.apiKey],
		cacheIdentity: keyIdentity(settings.apiKey),
		allowedCdnHosts: settings.allowedCdnHosts ? [settings.allowedCdnHosts] : undefined,
		maxDownloadBytes: settings.maxDownloadBytes,
	});
}
