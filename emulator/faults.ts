/**
 * Per-route fault injection. Bursts count down per request; `errorRate` draws from a seeded
 * PRNG so a test that sets the same seed sees the same failures.
 */
import { HttpError } from './errors';
import type { EmulatorRoute, FaultConfig, RouteFault } from './types';

/** mulberry32: tiny, fast, and good enough for fault dice. */
export function seededRandom(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class Faults {
	private config: FaultConfig = {};
	/** Mutable copies of the burst counters, so the caller's object is never changed. */
	private bursts = new Map<string, number>();

	constructor(
		config: FaultConfig | undefined,
		private readonly random: () => number,
	) {
		this.set(config ?? {});
	}

	set(config: FaultConfig): void {
		this.config = structuredClone(config);
		this.bursts.clear();
	}

	get(): FaultConfig {
		return structuredClone(this.config);
	}

	route(route: EmulatorRoute): RouteFault {
		return this.config[route] ?? {};
	}

	/** Added latency for the route, in ms. */
	latency(route: EmulatorRoute): number {
		return Math.max(0, this.route(route).latencyMs ?? 0);
	}

	/** The injected error for this request, if any (counts bursts down). */
	draw(route: EmulatorRoute): HttpError | undefined {
		const fault = this.route(route);
		if (this.takeBurst(`${route}.rate`, fault.rateLimitBurst)) {
			const seconds = fault.retryAfterSeconds ?? 1;
			return new HttpError(429, 'rate_limited', 'Too many requests; slow down.', undefined, {
				'Retry-After': String(seconds),
			});
		}
		const status = fault.errorStatus ?? 503;
		if (this.takeBurst(`${route}.error`, fault.errorBurst)) return injected(status);
		if (fault.errorRate !== undefined && fault.errorRate > 0 && this.random() < fault.errorRate) {
			return injected(status);
		}
		return undefined;
	}

	private takeBurst(key: string, initial: number | undefined): boolean {
		const left = this.bursts.get(key) ?? initial ?? 0;
		if (left <= 0) return false;
		this.bursts.set(key, left - 1);
		return true;
	}

	get sse(): Pick<FaultConfig, 'sseDropAfterEvents' | 'sseSilent' | 'sseDisabled'> {
		return this.config;
	}

	get cdn(): Pick<FaultConfig, 'cdnTruncateAfterBytes' | 'cdnSlowBytesPerSecond'> {
		return this.config;
	}
}

function injected(status: number): HttpError {
	const code =
		status === 503 ? 'service_unavailable' : status === 500 ? 'internal_error' : 'upstream_error';
	return new HttpError(status, code, `Injected fault: the service answered ${status}.`);
}
