/**
 * The results chart as a self-made SVG (no dependencies): every figure against its target,
 * completion-to-output latency p50 and p95 per way of waiting on a log scale, and requests per
 * 60 s job, each with its target line.
 */
import type { LatencyResult } from './latency';
import { formatValue, type Figure } from './lib/figures';
import type { RequestCount } from './requests';

const WIDTH = 980;
const LABEL_W = 400;
const BAR_H = 14;
const ROW_H = 38;
const PLOT_W = WIDTH - LABEL_W - 120;

function esc(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Panel {
	svg: string;
	height: number;
}

function logX(ms: number, min: number, max: number): number {
	const v = Math.min(max, Math.max(min, ms));
	return (PLOT_W * Math.log10(v / min)) / Math.log10(max / min);
}

function latencyPanel(results: LatencyResult[], top: number, targetMs: number): Panel {
	const min = 0.1;
	const max = 10_000;
	const parts: string[] = [
		`<text x="20" y="${top + 18}" class="title">Completion-to-output latency (ms, log scale): p50 solid, p95 light</text>`,
	];
	const plotTop = top + 34;
	const plotH = results.length * ROW_H;
	for (const tick of [0.1, 1, 10, 100, 1_000, 10_000]) {
		const x = LABEL_W + logX(tick, min, max);
		parts.push(
			`<line x1="${x}" y1="${plotTop}" x2="${x}" y2="${plotTop + plotH}" class="grid"/>`,
			`<text x="${x}" y="${plotTop + plotH + 14}" class="tick">${tick >= 1000 ? `${tick / 1000} s` : `${tick} ms`}</text>`,
		);
	}
	results.forEach((r, i) => {
		const y = plotTop + i * ROW_H + 6;
		const p50 = Math.max(min, r.summary.p50);
		const p95 = Math.max(min, r.summary.p95);
		parts.push(
			`<text x="${LABEL_W - 8}" y="${y + BAR_H}" class="label">${esc(r.label)}</text>`,
			`<rect x="${LABEL_W}" y="${y}" width="${logX(p95, min, max).toFixed(1)}" height="${BAR_H * 1.6}" class="p95"/>`,
			`<rect x="${LABEL_W}" y="${y + BAR_H * 0.3}" width="${logX(p50, min, max).toFixed(1)}" height="${BAR_H}" class="p50"/>`,
			`<text x="${LABEL_W + logX(p95, min, max) + 4}" y="${y + BAR_H}" class="value">${r.summary.p50} / ${r.summary.p95}</text>`,
		);
	});
	const tx = LABEL_W + logX(targetMs, min, max);
	parts.push(
		`<line x1="${tx}" y1="${plotTop - 4}" x2="${tx}" y2="${plotTop + plotH}" class="target"/>`,
		`<text x="${tx + 3}" y="${plotTop - 6}" class="targettext">SSE target p50 ≤ ${targetMs} ms</text>`,
	);
	return { svg: parts.join('\n'), height: plotH + 60 };
}

function requestsPanel(counts: RequestCount[], top: number, sseTarget: number): Panel {
	const max = Math.max(...counts.map((c) => c.perJob), sseTarget) * 1.15;
	const parts: string[] = [
		`<text x="20" y="${top + 18}" class="title">Requests per job while waiting, 60 s job</text>`,
	];
	const plotTop = top + 34;
	const plotH = counts.length * ROW_H;
	counts.forEach((c, i) => {
		const y = plotTop + i * ROW_H + 6;
		const w = (PLOT_W * c.perJob) / max;
		parts.push(
			`<text x="${LABEL_W - 8}" y="${y + BAR_H}" class="label">${esc(c.label)}</text>`,
			`<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H * 1.4}" class="p50"/>`,
			`<text x="${LABEL_W + w + 4}" y="${y + BAR_H}" class="value">${c.perJob}</text>`,
		);
	});
	const fixed2 = counts.find((c) => c.id === 'fixed-2s');
	const lines: Array<[number, string]> = [[sseTarget, `SSE target ≤ ${sseTarget}`]];
	if (fixed2) lines.push([fixed2.perJob / 3, `polling target ≤ ${(fixed2.perJob / 3).toFixed(1)}`]);
	lines.forEach(([value, text], i) => {
		const x = LABEL_W + (PLOT_W * value) / max;
		parts.push(
			`<line x1="${x}" y1="${plotTop - 4}" x2="${x}" y2="${plotTop + plotH}" class="target"/>`,
			`<text x="${x + 3}" y="${plotTop - 6 + i * 0}" class="targettext" dy="${i * 11}">${esc(text)}</text>`,
		);
	});
	return { svg: parts.join('\n'), height: plotH + 50 };
}

/** Every figure as a share of its target on a log scale: a bar left of the 100 % line holds. */
function targetsPanel(figures: Figure[], top: number): Panel {
	const min = 0.001;
	const max = 10;
	const parts: string[] = [
		`<text x="20" y="${top + 18}" class="title">Every figure as a share of its target (log scale; left of 100 % holds)</text>`,
	];
	const plotTop = top + 34;
	const plotH = figures.length * ROW_H;
	for (const tick of [0.001, 0.01, 0.1, 1, 10]) {
		const x = LABEL_W + logX(tick, min, max);
		parts.push(
			`<line x1="${x}" y1="${plotTop}" x2="${x}" y2="${plotTop + plotH}" class="grid"/>`,
			`<text x="${x}" y="${plotTop + plotH + 14}" class="tick">${tick * 100} %</text>`,
		);
	}
	figures.forEach((f, i) => {
		const y = plotTop + i * ROW_H + 6;
		const share = f.target > 0 ? f.value / f.target : max;
		const w = logX(Math.max(min, share), min, max);
		parts.push(
			`<text x="${LABEL_W - 8}" y="${y + BAR_H}" class="label">${esc(f.label)}</text>`,
			`<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H * 1.4}" class="${f.holds ? 'ok' : 'miss'}"/>`,
			`<text x="${LABEL_W + w + 4}" y="${y + BAR_H}" class="value">${esc(formatValue(f.value, f.unit))} of ${esc(formatValue(f.target, f.unit))}</text>`,
		);
	});
	const x = LABEL_W + logX(1, min, max);
	parts.push(
		`<line x1="${x}" y1="${plotTop - 4}" x2="${x}" y2="${plotTop + plotH}" class="target"/>`,
	);
	return { svg: parts.join('\n'), height: plotH + 60 };
}

export function renderChart(
	latency: LatencyResult[],
	requests: RequestCount[],
	figures: Figure[],
	targets: { sseP50Ms: number; sseRequests: number },
	subtitle: string,
): string {
	const first = targetsPanel(figures, 30);
	const second = latencyPanel(latency, 30 + first.height + 10, targets.sseP50Ms);
	const third = requestsPanel(
		requests,
		30 + first.height + second.height + 20,
		targets.sseRequests,
	);
	const height = 30 + first.height + second.height + third.height + 30;
	return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif">
<style>
.title { font-size: 14px; font-weight: bold; fill: #222; }
.sub { font-size: 11px; fill: #666; }
.label { font-size: 12px; fill: #333; text-anchor: end; }
.value { font-size: 11px; fill: #333; }
.tick { font-size: 10px; fill: #777; text-anchor: middle; }
.grid { stroke: #e3e3e3; stroke-width: 1; }
.p50 { fill: #3b6fd8; }
.p95 { fill: #a9c0ee; }
.ok { fill: #3c9a5f; }
.miss { fill: #d23c3c; }
.target { stroke: #d23c3c; stroke-width: 1.5; stroke-dasharray: 4 3; }
.targettext { font-size: 10px; fill: #d23c3c; }
</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="20" y="20" class="sub">${esc(subtitle)}</text>
${first.svg}
${second.svg}
${third.svg}
</svg>
`;
}
