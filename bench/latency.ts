/**
 * Completion-to-output latency: from the moment the emulator marks a job complete
 * (`completedAt` of its job view) to the moment the waiting code hands the result on (the core
 * resolving `wait`, the n8n Sink node receiving Generate Media's item, a fixed poller seeing
 * the 303). Queue times are spread evenly over 10 s so every phase of a 1, 2 or 5 s poll
 * interval is sampled; the run time is fixed.
 */
import type { RunningEmulator } from '../emulator/types';
import { coreClient, fixedPoll, submitPlain } from './lib/clients';
import { JOB_REQUEST, jobView, startEmulator, untilJobCount } from './lib/emulators';
import { Gate } from './lib/gate';
import { renderEngine, runGenerate, type Arrival } from './lib/n8n';
import { stratified, summarize, type Summary } from './lib/stats';

export const LATENCY_RUN_MS = 1_000;
const QUEUE_FROM_MS = 200;
/** A multiple of every poll interval compared (1 s Retry-After, 2 s, 5 s). */
const QUEUE_SPAN_MS = 10_000;

export interface LatencyResult {
	id: string;
	label: string;
	samplesMs: number[];
	summary: Summary;
}

export interface LatencyMethod {
	id: string;
	label: string;
	/** Submits and waits for one job (submission inside `gate`), resolving with its latency. */
	sample(ctx: SampleContext): Promise<number>;
	/** Optional warm-up before the samples (caches, JIT, connections). */
	warmUp?(ctx: SampleContext): Promise<void>;
}

export interface SampleContext {
	emulator: RunningEmulator;
	gate: Gate;
	queueMs: number;
	/** How many jobs the emulator will hold once this sample has submitted. */
	jobNumber: number;
}

export function queuePlan(samples: number): number[] {
	return stratified(samples, QUEUE_FROM_MS, QUEUE_SPAN_MS);
}

/** An emulator set up for latency samples: no queueing behind the worker pool. */
export function latencyEmulator(): Promise<RunningEmulator> {
	return startEmulator({ concurrency: 64, queueMs: 50, runMs: LATENCY_RUN_MS });
}

export async function measureLatency(
	method: LatencyMethod,
	samples: number,
	emulator?: RunningEmulator,
): Promise<LatencyResult> {
	emulator ??= await latencyEmulator();
	const gate = new Gate();
	let jobs = 0;
	if (method.warmUp) {
		jobs++;
		await method.warmUp({ emulator, gate, queueMs: 50, jobNumber: jobs });
	}
	const pending = queuePlan(samples).map((queueMs) => {
		jobs++;
		return method.sample({ emulator, gate, queueMs, jobNumber: jobs });
	});
	const samplesMs = await Promise.all(pending);
	return { id: method.id, label: method.label, samplesMs, summary: summarize(samplesMs) };
}

/** Our core: submit, then `wait` in the given mode; output = `wait` resolving. */
function coreMethod(id: string, label: string, mode: 'sse' | 'poll' | 'auto'): LatencyMethod {
	const clients = new WeakMap<RunningEmulator, ReturnType<typeof coreClient>>();
	const clientFor = (emulator: RunningEmulator) => {
		let client = clients.get(emulator);
		if (!client) clients.set(emulator, (client = coreClient(emulator)));
		return client;
	};
	const sample = async ({ emulator, gate, queueMs }: SampleContext): Promise<number> => {
		const client = clientFor(emulator);
		const job = await gate.hold(async () => {
			emulator.setTiming({ queueMs });
			return client.submit({ ...JOB_REQUEST });
		});
		const outcome = await client.wait(job.jobId, { mode });
		const out = Date.now();
		if (outcome.kind !== 'complete') throw new Error(`job ${job.jobId} did not complete`);
		return out - (jobView(emulator, job.jobId).completedAt as number);
	};
	return { id, label, sample, warmUp: async (ctx) => void (await sample(ctx)) };
}

/** Generate Media in n8n's engine; output = the next node receiving the item. */
function n8nNodeMethod(
	id: string,
	label: string,
	waitStrategy: 'sse' | 'poll',
	output: 'binary' | 'url' = 'binary',
): LatencyMethod {
	const sample = async ({ emulator, gate, queueMs, jobNumber }: SampleContext) => {
		const arrivals: Arrival[] = [];
		const engine = renderEngine(emulator, arrivals);
		const run = await gate.hold(async () => {
			emulator.setTiming({ queueMs });
			const running = runGenerate(engine, { waitStrategy, output });
			// Hold the gate until the job exists, so the next sample cannot change its timing.
			await Promise.race([untilJobCount(emulator, jobNumber), running]);
			return { running };
		});
		await run.running;
		const arrival = arrivals[0];
		if (!arrival) throw new Error('Generate Media output no item');
		const jobId = String(arrival.item.json.jobId);
		return arrival.at - (jobView(emulator, jobId).completedAt as number);
	};
	return { id, label, sample, warmUp: async (ctx) => void (await sample(ctx)) };
}

/** A fixed-interval poller like the anchor nodes, on plain HTTP. */
function fixedMethod(intervalMs: number): LatencyMethod {
	return {
		id: `fixed-${intervalMs / 1000}s`,
		label: `Fixed ${intervalMs / 1000} s poller (anchor nodes)`,
		async sample({ emulator, gate, queueMs }) {
			const jobId = await gate.hold(async () => {
				emulator.setTiming({ queueMs });
				return submitPlain(emulator);
			});
			const seen = await fixedPoll(emulator, jobId, intervalMs);
			return seen - (jobView(emulator, jobId).completedAt as number);
		},
	};
}

export const IN_PROCESS_METHODS: LatencyMethod[] = [
	coreMethod('core-sse', 'Core, SSE', 'sse'),
	coreMethod('core-poll', 'Core, our polling', 'poll'),
	n8nNodeMethod('n8n-node-sse', 'n8n Generate Media, SSE (binary out)', 'sse'),
	// Same wait without the download: separates waiting from moving the file.
	n8nNodeMethod('n8n-node-sse-url', 'n8n Generate Media, SSE (URL out)', 'sse', 'url'),
	n8nNodeMethod('n8n-node-poll', 'n8n Generate Media, polling (binary out)', 'poll'),
	fixedMethod(2_000),
	fixedMethod(5_000),
];
