/**
 * Result files, rendered on demand and cached by request. Rendering is deterministic, so an
 * evicted entry is simply rendered again: memory stays bounded even with padded results.
 */
import { createHash } from 'node:crypto';
import { renderResult } from './render';
import type { JobRequest, RenderedResult } from './types';

const CACHE_BUDGET_BYTES = 256 * 1024 * 1024;

export class ResultCache {
	private readonly entries = new Map<string, RenderedResult & { etag: string }>();
	private bytes = 0;

	constructor(private readonly padBytes: number | undefined) {}

	get(request: JobRequest): RenderedResult & { etag: string } {
		const key = requestKey(request);
		const hit = this.entries.get(key);
		if (hit) {
			// Re-insert to keep the map in least-recently-used order.
			this.entries.delete(key);
			this.entries.set(key, hit);
			return hit;
		}
		const rendered = renderResult(request, { padBytes: this.padBytes });
		const etag = `"${createHash('sha1').update(rendered.data).digest('base64url')}"`;
		const entry = { ...rendered, etag };
		this.entries.set(key, entry);
		this.bytes += entry.data.length;
		this.evict();
		return entry;
	}

	private evict(): void {
		for (const [key, entry] of this.entries) {
			if (this.bytes <= CACHE_BUDGET_BYTES || this.entries.size <= 1) return;
			this.entries.delete(key);
			this.bytes -= entry.data.length;
		}
	}
}

/** Only what changes the picture: two requests with the same key give the same bytes. */
export function requestKey(r: JobRequest): string {
	const image = r.image ? createHash('sha256').update(r.image).digest('hex') : '';
	return JSON.stringify([r.modality, r.family, r.model, r.format, r.prompt, r.seed ?? null, image]);
}
