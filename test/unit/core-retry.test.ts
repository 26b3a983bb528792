import {
	backoffDelay,
	clampHint,
	ERROR_BACKOFF,
	isTransientStatus,
	MAX_RETRY_AFTER_MS,
	parseRetryAfter,
	pollDelay,
	retryDelay,
} from '../../core/retry';

describe('backoff schedule', () => {
	it('doubles from 0.5 s to an 8 s ceiling for transient errors (no jitter drawn)', () => {
		const schedule = Array.from({ length: 7 }, (_, i) => backoffDelay(i, ERROR_BACKOFF, () => 0));
		expect(schedule).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
	});

	it('jitter only shortens the wait, by at most half', () => {
		expect(backoffDelay(2, ERROR_BACKOFF, () => 1)).toBe(1000);
		expect(backoffDelay(2, ERROR_BACKOFF, () => 0.5)).toBe(1500);
		for (let i = 0; i < 50; i++) {
			const d = backoffDelay(3, ERROR_BACKOFF, Math.random);
			expect(d).toBeGreaterThanOrEqual(2000);
			expect(d).toBeLessThanOrEqual(4000);
		}
	});

	it('polls quickly at first and doubles to a 15 s ceiling', () => {
		const schedule = Array.from({ length: 8 }, (_, i) => pollDelay(i));
		expect(schedule).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
	});

	it("treats the server's polling hint as a floor, not a replacement", () => {
		// A 1 s hint lengthens only the waits shorter than it...
		expect(Array.from({ length: 7 }, (_, i) => pollDelay(i, 1000))).toEqual([
			1000, 1000, 2000, 4000, 8000, 15_000, 15_000,
		]);
		// ...and a long one is obeyed even past our ceiling, up to the one-minute cap.
		expect(pollDelay(0, 20_000)).toBe(20_000);
		expect(pollDelay(5, 0)).toBe(15_000);
		expect(pollDelay(0, 0)).toBe(500);
		expect(pollDelay(0, 3_600_000)).toBe(MAX_RETRY_AFTER_MS);
		expect(clampHint(10)).toBe(250);
	});
});

describe('Retry-After', () => {
	const now = Date.parse('2026-01-01T00:00:00Z');

	it('reads delta-seconds and HTTP dates', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
	});

	it('ignores absent or unreadable values', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('-5', now)).toBeUndefined();
	});

	it('wins over backoff when given, capped at one minute', () => {
		expect(retryDelay(0, () => 0, 7000)).toBe(7000);
		expect(retryDelay(4, () => 0, 0)).toBe(0);
		expect(retryDelay(0, () => 0, 10 * 60_000)).toBe(60_000);
		expect(retryDelay(1, () => 0)).toBe(1000);
	});
});

describe('transient statuses', () => {
	it('retries timeouts, rate limits and server trouble, not client errors', () => {
		for (const s of [408, 425, 429, 500, 502, 503, 504, 599])
			expect(isTransientStatus(s)).toBe(true);
		for (const s of [200, 303, 400, 401, 403, 404, 409, 422, 501, 505])
			expect(isTransientStatus(s)).toBe(false);
	});
});
