/** Parses a single-range `Range: bytes=...` header (multipart ranges are not offered). */

export type RangeResult =
	| { kind: 'full' }
	| { kind: 'partial'; start: number; end: number }
	| { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeResult {
	if (!header) return { kind: 'full' };
	const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
	// A syntactically odd Range header is ignored, as RFC 9110 allows.
	if (!match || (match[1] === '' && match[2] === '')) return { kind: 'full' };
	const [, first = '', last = ''] = match;
	if (first === '') {
		const suffix = Number(last);
		if (suffix === 0) return { kind: 'unsatisfiable' };
		return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
	}
	const start = Number(first);
	const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
	if (start >= size || end < start) return { kind: 'unsatisfiable' };
	return { kind: 'partial', start, end };
}
