/** Per-key token buckets: a request takes one token; an empty bucket answers 429. */
import { HttpError } from './errors';

export class RateLimiter {
	private buckets = new Map<string, { tokens: number; at: number }>();

	constructor(
		private readonly config: { capacity: number; refillPerSecond: number } | undefined,
		private readonly now: () => number = Date.now,
	) {}

	/** Throws a 429 with Retry-After when the key's bucket is empty. */
	take(key: string): void {
		if (!this.config) return;
		const { capacity, refillPerSecond } = this.config;
		const now = this.now();
		const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now };
		bucket.tokens = Math.min(
			capacity,
			bucket.tokens + ((now - bucket.at) / 1000) * refillPerSecond,
		);
		bucket.at = now;
		this.buckets.set(key, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return;
		}
		const wait = refillPerSecond > 0 ? Math.ceil((1 - bucket.tokens) / refillPerSecond) : 60;
		throw new HttpError(429, 'rate_limited', 'Rate limit exceeded for this API key.', undefined, {
			'Retry-After': String(Math.max(1, wait)),
		});
	}
}
