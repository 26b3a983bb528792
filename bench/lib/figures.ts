/** A benchmark figure with its target, as printed, tabled and charted. */

export interface Figure {
	/** Section of the report: latency, requests, throughput, memory, editor. */
	section: string;
	label: string;
	value: number;
	unit: string;
	/** The figure holds when `value <= target`. */
	target: number;
	/** How the target reads, e.g. "<= 20 ms". */
	targetText: string;
	holds: boolean;
	note?: string;
}

export function figure(
	section: string,
	label: string,
	value: number,
	unit: string,
	target: number,
	targetText: string,
	note?: string,
): Figure {
	return { section, label, value, unit, target, targetText, holds: value <= target, note };
}

export function formatValue(value: number, unit: string): string {
	const text = Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1);
	return unit ? `${text} ${unit}` : text;
}

export function verdict(f: Figure): string {
	return f.holds ? 'holds' : 'MISSED';
}
