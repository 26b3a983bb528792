/**
 * `npm run bench`: every benchmark of issue 6 in one run against local emulators, then
 * bench/results/latest.{json,md,svg}. Phases are ordered so that nothing CPU-heavy (n8n's
 * start-up, the 500 MiB downloads) runs while editor timings or in-process latencies are
 * taken, and each SSE way of waiting is measured alone; the 60 s jobs, idle while waiting,
 * overlap with latency and throughput.
 *
 * Env: BENCH_LATENCY_SAMPLES (default 40 per way of waiting), BENCH_SKIP_REAL_N8N=1 (no real
 * n8n process: the hand-built loop is then left out).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { renderChart } from './chart';
import { editorEmulator, editorN8n, editorNodeRed } from './editor';
import { disposeAllHandBuilt, startHandBuilt, type HandBuiltRig } from './handbuilt-n8n';
import {
	IN_PROCESS_METHODS,
	latencyEmulator,
	measureLatency,
	type LatencyMethod,
	type LatencyResult,
} from './latency';
import { closeAll } from './lib/emulators';
import { figure, type Figure } from './lib/figures';
import { round } from './lib/stats';
import { measureMemory, memoryEmulators, type MemoryResult } from './memory';
import { figureLine, renderMarkdown, type BenchResults } from './report';
import { countRequests, requestsEmulator, WAITERS } from './requests';
import { throughputCore, throughputN8n } from './throughput';

const REPO_ROOT = join(__dirname, '..', '..');
const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 40);
const LONG_JOBS = 3;
const MEMORY_RUNS = 2;
const SKIP_REAL_N8N = process.env.BENCH_SKIP_REAL_N8N === '1';

const TARGETS = {
	sseP50Ms: 20,
	sseRequests: 3,
	throughputRatio: 1.2,
	memoryMb: 64,
	editorMs: 50,
};

const started = Date.now();
function log(line: string): void {
	process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
}

async function startRealN8n(): Promise<{ rig?: HandBuiltRig; note: string }> {
	if (SKIP_REAL_N8N) return { note: 'skipped (BENCH_SKIP_REAL_N8N=1)' };
	const emulators = {
		latency: await latencyEmulator(),
		requests: await requestsEmulator(LONG_JOBS),
	};
	// One retry: on a shared machine a start-up can lose a race for a port.
	for (let attempt = 1; ; attempt++) {
		try {
			const rig = await startHandBuilt(emulators, log);
			const version = process.env.N8N_E2E_VERSION ?? '2.41.1';
			return {
				rig,
				note: `n8n ${version} on Node 24 (e2e cache), hand-built workflow via its webhook`,
			};
		} catch (error) {
			const text = error instanceof Error ? error.message : String(error);
			log(`real n8n could not start (attempt ${attempt}):\n${text.slice(-3000)}`);
			if (attempt >= 2) return { note: 'could not start; see the log of the run' };
		}
	}
}

function latencyFigures(r: BenchResults): Figure[] {
	return r.latency
		.filter((l) => l.id.includes('-sse'))
		.map((l) =>
			figure(
				'latency',
				`Latency p50, ${l.label}`,
				l.summary.p50,
				'ms',
				TARGETS.sseP50Ms,
				`≤ ${TARGETS.sseP50Ms} ms`,
			),
		);
}

function requestFigures(r: BenchResults): Figure[] {
	const byId = new Map(r.requests.map((c) => [c.id, c]));
	const out: Figure[] = [];
	const sse = byId.get('core-sse');
	if (sse)
		out.push(
			figure(
				'requests',
				'Requests per 60 s job, SSE',
				sse.perJob,
				'',
				TARGETS.sseRequests,
				`≤ ${TARGETS.sseRequests}`,
			),
		);
	const poll = byId.get('core-poll');
	const fixed = byId.get('fixed-2s');
	if (poll && fixed) {
		const bound = round(fixed.perJob / 3, 2);
		out.push(
			figure(
				'requests',
				'Requests per 60 s job, our polling',
				poll.perJob,
				'',
				bound,
				`≤ ${bound} (⅓ of fixed 2 s: ${fixed.perJob})`,
			),
		);
	}
	return out;
}

function otherFigures(r: BenchResults): Figure[] {
	const out: Figure[] = [];
	for (const t of r.throughput) {
		out.push(
			figure(
				'throughput',
				`Throughput wall / bound, ${t.id === 'core-map' ? 'core mapWithConcurrency' : 'n8n Generate Media'}`,
				t.ratio,
				'×',
				TARGETS.throughputRatio,
				`≤ ${TARGETS.throughputRatio}× of ${(t.boundMs / 1000).toFixed(1)} s`,
			),
		);
	}
	for (const id of new Set(r.memory.map((m) => m.id))) {
		const runs = r.memory.filter((m) => m.id === id);
		const worst = runs.reduce((a, b) => (b.growthBytes > a.growthBytes ? b : a));
		out.push(
			figure(
				'memory',
				`Peak RSS growth, ${worst.label}`,
				round(worst.growthBytes / 1e6),
				'MB',
				TARGETS.memoryMb,
				`≤ ${TARGETS.memoryMb} MB`,
				runs.length > 1 ? `worst of ${runs.length} runs` : undefined,
			),
		);
	}
	const n8n = r.editor.filter((e) => e.id.startsWith('n8n-'));
	if (n8n.length > 0) {
		const worst = n8n.reduce((a, b) => (b.summary.p95 > a.summary.p95 ? b : a));
		out.push(
			figure(
				'editor',
				`Dropdown fill p95, n8n (slowest: ${worst.id.slice(4)})`,
				worst.summary.p95,
				'ms',
				TARGETS.editorMs,
				`≤ ${TARGETS.editorMs} ms`,
			),
		);
	}
	const nodeRed = r.editor.find((e) => e.id === 'node-red-catalogue');
	if (nodeRed)
		out.push(
			figure(
				'editor',
				'Dropdown fill p95, Node-RED endpoint',
				nodeRed.summary.p95,
				'ms',
				TARGETS.editorMs,
				`≤ ${TARGETS.editorMs} ms`,
			),
		);
	return out;
}

/**
 * SSE ways one after another (their milliseconds are what the machine's load moves), then the
 * polling ways together (their figures are set by their intervals). Results keep list order.
 */
async function measureInProcessLatency(): Promise<LatencyResult[]> {
	const byId = new Map<string, LatencyResult>();
	const isSse = (m: LatencyMethod) => m.id.includes('-sse');
	for (const method of IN_PROCESS_METHODS.filter(isSse)) {
		byId.set(method.id, await measureLatency(method, LATENCY_SAMPLES));
	}
	const polling = IN_PROCESS_METHODS.filter((m) => !isSse(m));
	const results = await Promise.all(polling.map((m) => measureLatency(m, LATENCY_SAMPLES)));
	for (const result of results) byId.set(result.id, result);
	return IN_PROCESS_METHODS.map((m) => byId.get(m.id) as LatencyResult);
}

async function measureAllMemory(): Promise<MemoryResult[]> {
	const emulators = await memoryEmulators();
	const childScript = join(__dirname, 'memory-child.js');
	const out: MemoryResult[] = [];
	// Each path twice: the peak moves with when V8 collects, and the figure is the worse run.
	for (let run = 1; run <= MEMORY_RUNS; run++) {
		for (const variant of ['core', 'n8n'] as const) {
			out.push({ ...(await measureMemory(emulators, variant, childScript)), run });
			log(`memory ${variant} #${run}: ${(out.at(-1)!.growthBytes / 1e6).toFixed(1)} MB growth`);
		}
	}
	return out;
}

/** n8n-core's instance folder for the in-process engine (N8N_USER_FOLDER), removed at the end. */
const n8nFolder = mkdtempSync(join(tmpdir(), 'bench-n8n-'));
process.env.N8N_USER_FOLDER = n8nFolder;

process.once('SIGINT', () => {
	log('interrupted: stopping n8n and the emulators');
	// Waits still in flight fail as their servers close; that is the point, not an error.
	process.on('unhandledRejection', () => undefined);
	void Promise.allSettled([disposeAllHandBuilt(), closeAll()]).then(() => {
		rmSync(n8nFolder, { recursive: true, force: true });
		process.exit(130);
	});
});

async function main(): Promise<void> {
	const results: BenchResults = {
		startedAt: new Date(started).toISOString(),
		durationMs: 0,
		environment: {
			node: process.versions.node,
			platform: `${process.platform}-${process.arch}`,
			cpus: cpus().length,
			cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
			realN8n: '',
			loadAverageAtStart: loadavg().map((l) => round(l, 2)),
		},
		latency: [],
		requests: [],
		throughput: [],
		memory: [],
		editor: [],
		figures: [],
	};
	let rig: HandBuiltRig | undefined;
	try {
		log('phase 1: real n8n start-up, beside the 500 MiB memory runs');
		const realN8n = startRealN8n();
		// A started n8n must be stopped whatever the memory runs do: wait for both first.
		const [memory, real] = await Promise.all([
			measureAllMemory().then(
				(value) => ({ value }),
				(error: unknown) => ({ error }),
			),
			realN8n,
		]);
		rig = real.rig;
		results.environment.realN8n = real.note;
		if ('error' in memory) throw memory.error;
		results.memory = memory.value;

		log(`phase 2: latency in process (${LATENCY_SAMPLES} samples per way); the 60 s jobs start`);
		const requests = Promise.all([
			...WAITERS.map((w) => countRequests(w, LONG_JOBS)),
			...(rig ? [countRequests(rig.waiter, LONG_JOBS, rig.requestsEmulator)] : []),
		]);
		// Awaited below; if a phase in between throws, its failure must not also crash the run.
		requests.catch(() => undefined);
		results.latency = await measureInProcessLatency();

		// The hand-built loop has a 5 s granularity, so sharing the CPU with the throughput run
		// cannot move its figures; the in-process latencies above had the machine to themselves.
		log('phase 3: throughput, and the hand-built loop in real n8n, while the 60 s jobs finish');
		const handBuilt = rig
			? measureLatency(rig.method, LATENCY_SAMPLES, rig.latencyEmulator)
			: Promise.resolve(undefined);
		results.throughput = await Promise.all([throughputN8n(), throughputCore()]);
		for (const t of results.throughput)
			log(`throughput ${t.id}: ${(t.wallMs / 1000).toFixed(2)} s (${t.ratio}× bound)`);
		const handBuiltResult = await handBuilt;
		if (handBuiltResult) results.latency.push(handBuiltResult);
		for (const l of results.latency)
			log(`latency ${l.id}: p50 ${l.summary.p50} ms, p95 ${l.summary.p95} ms`);
		await rig?.dispose();
		rig = undefined;
		results.requests = await requests;
		for (const c of results.requests) log(`requests ${c.id}: ${c.perJob} per job`);

		log('phase 4: editor dropdowns, with nothing else running');
		await closeAll();
		const edEmulator = await editorEmulator();
		results.editor.push(...(await editorN8n(edEmulator)), await editorNodeRed(edEmulator));
	} finally {
		await rig?.dispose();
		await closeAll();
		rmSync(n8nFolder, { recursive: true, force: true });
	}

	results.figures = [
		...latencyFigures(results),
		...requestFigures(results),
		...otherFigures(results),
	];
	results.durationMs = Date.now() - started;
	mkdirSync(RESULTS_DIR, { recursive: true });
	writeFileSync(join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(results, null, '\t')}\n`);
	writeFileSync(join(RESULTS_DIR, 'latest.md'), renderMarkdown(results));
	writeFileSync(
		join(RESULTS_DIR, 'latest.svg'),
		renderChart(
			results.latency,
			results.requests,
			results.figures,
			TARGETS,
			`npm run bench, ${results.startedAt}, Node ${process.versions.node}, ${results.environment.cpus} CPUs`,
		),
	);
	process.stdout.write(
		`\n${results.figures.map(figureLine).join('\n')}\n\nWrote bench/results/latest.{json,md,svg}\n`,
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
