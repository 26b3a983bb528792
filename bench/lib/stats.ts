/** Percentiles and small numeric helpers for the benchmark figures. */

/** Linear-interpolated percentile (p in 0..100) of `values`; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = (p / 100) * (sorted.length - 1);
	const low = Math.floor(rank);
	const high = Math.ceil(rank);
	const lowValue = sorted[low] as number;
	const highValue = sorted[high] as number;
	return lowValue + (highValue - lowValue) * (rank - low);
}

export interface Summary {
	n: number;
	p50: number;
	p95: number;
	min: number;
	max: number;
}

export function summarize(values: readonly number[]): Summary {
	return {
		n: values.length,
		p50: round(percentile(values, 50)),
		p95: round(percentile(values, 95)),
		min: round(Math.min(...values)),
		max: round(Math.max(...values)),
	};
}

export function round(value: number, digits = 1): number {
	const f = 10 ** digits;
	return Math.round(value * f) / f;
}

/** `count` values spread evenly over [from, from + span), so every phase of a poll interval is hit. */
export function stratified(count: number, from: number, span: number): number[] {
	return Array.from({ length: count }, (_v, i) => Math.round(from + (span * (i + 0.5)) / count));
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
