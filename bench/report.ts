/** The Markdown table and console lines of a benchmark run. */
import type { EditorResult } from './editor';
import type { LatencyResult } from './latency';
import { formatValue, verdict, type Figure } from './lib/figures';
import type { MemoryResult } from './memory';
import type { RequestCount } from './requests';
import type { ThroughputResult } from './throughput';

export interface BenchResults {
	startedAt: string;
	durationMs: number;
	environment: {
		node: string;
		platform: string;
		cpus: number;
		cpuModel: string;
		realN8n: string;
		/** 1, 5 and 15 minute load averages when the run started (other work on the machine). */
		loadAverageAtStart: number[];
	};
	latency: LatencyResult[];
	requests: RequestCount[];
	throughput: ThroughputResult[];
	memory: MemoryResult[];
	editor: EditorResult[];
	figures: Figure[];
}

export function figureLine(f: Figure): string {
	const mark = f.holds ? 'OK  ' : 'MISS';
	return `${mark} ${f.label}: ${formatValue(f.value, f.unit)} (target ${f.targetText})${f.note ? ` — ${f.note}` : ''}`;
}

function table(header: string[], rows: Array<Array<string | number>>): string {
	const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
	return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

export function renderMarkdown(r: BenchResults): string {
	const env = r.environment;
	return `# Benchmark results

Run ${r.startedAt} in ${(r.durationMs / 1000).toFixed(0)} s on Node ${env.node}, ${env.platform}, ${env.cpus} × ${env.cpuModel} (load average at start ${env.loadAverageAtStart.join(', ')}); real n8n: ${env.realN8n}. Produced by \`npm run bench\`; see docs/benchmarks.md for the method.

## Figures against their targets

${table(
	['Figure', 'Value', 'Target', 'Verdict'],
	r.figures.map((f) => [
		f.label,
		`${formatValue(f.value, f.unit)}${f.note ? ` (${f.note})` : ''}`,
		f.targetText,
		verdict(f),
	]),
)}

## Completion-to-output latency (ms)

${table(
	['Way of waiting', 'n', 'p50', 'p95', 'min', 'max'],
	r.latency.map((l) => [
		l.label,
		l.summary.n,
		l.summary.p50,
		l.summary.p95,
		l.summary.min,
		l.summary.max,
	]),
)}

## Requests per job while waiting (60 s job)

${table(
	['Way of waiting', 'jobs', 'per job', 'GET /jobs/{id}', 'GET /jobs/{id}/events'],
	r.requests.map((c) => [c.label, c.jobs, c.perJob, c.jobRequests, c.eventRequests]),
)}

## Throughput (100 items, 2 s jobs, pool of 8)

${table(
	['Client', 'wall (s)', 'bound (s)', 'ratio'],
	r.throughput.map((t) => [
		t.label,
		(t.wallMs / 1000).toFixed(2),
		(t.boundMs / 1000).toFixed(2),
		t.ratio,
	]),
)}

## Memory (one ${mb(r.memory[0]?.resultBytes ?? 0)} MB result)

${table(
	['Path', 'run', 'baseline RSS (MB)', 'peak RSS (MB)', 'growth (MB)', 'stored'],
	r.memory.map((m) => [
		m.label,
		m.run ?? 1,
		mb(m.baselineRssBytes),
		mb(m.peakRssBytes),
		mb(m.growthBytes),
		`${mb(m.fileBytes)} MB, ${m.storedAs.split(':')[0]}`,
	]),
)}

## Editor dropdowns, warm cache, 1,000-model catalogue (ms per call)

${table(
	['Dropdown', 'options', 'p50', 'p95', 'max'],
	r.editor.map((e) => [e.label, e.options, e.summary.p50, e.summary.p95, e.summary.max]),
)}

![chart](latest.svg)
`;
}
