/** One generated file of the demo and the table printed at the end. */

export interface DemoRow {
	engine: string;
	model: string;
	format: string;
	/** How the node actually learnt that the job finished: `sse` or `poll`. */
	waitMode: string;
	/** Time from submitting the job to having the result, in seconds. */
	seconds: number;
	file: string;
	prompt: string;
}

const COLUMNS: Array<[string, (row: DemoRow) => string]> = [
	['engine', (r) => r.engine],
	['model', (r) => r.model],
	['format', (r) => r.format],
	['wait mode', (r) => r.waitMode],
	['seconds', (r) => r.seconds.toFixed(2)],
	['file', (r) => r.file],
];

export function formatTable(rows: DemoRow[]): string {
	const cells = [COLUMNS.map(([title]) => title), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
	const widths = COLUMNS.map((_c, i) => Math.max(...cells.map((line) => line[i]!.length)));
	const line = (values: string[]): string =>
		values
			.map((v, i) => v.padEnd(widths[i]!))
			.join('  ')
			.trimEnd();
	const [head, ...body] = cells;
	return [line(head!), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** A file name from a prompt: lower case words joined by dashes, at most 48 characters. */
export function slug(text: string): string {
	const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? ['file'];
	return words.join('-').slice(0, 48).replace(/-+$/, '');
}
