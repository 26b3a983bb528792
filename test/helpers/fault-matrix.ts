/**
 * The fault matrix shared by the core, n8n and Node-RED specs: the scenarios, a fast emulator
 * with the distinctive key, the accounting every scenario must pass (nothing lost, nothing
 * duplicated, every file byte-identical, nothing leaked) and the summary table.
 */
import {
	createEmulator,
	type EmulatorCounters,
	type FaultConfig,
	type JobView,
	type RunningEmulator,
} from '../../emulator';
import type { OnTimeout, WaitMode } from '../../core/types';
import { SECRET_KEY } from './fault-capture';

/** Emulator timings in tens of ms, so the whole matrix stays fast. */
export const FAST_TIMING = { queueMs: 20, runMs: 100 };

export interface FaultEmulator {
	emulator: RunningEmulator;
	/** Every request line the emulator logged (scanned for the key too). */
	logLines: string[];
	/** Calls `fn` for each later log line until the returned function is called. */
	onLog(fn: (line: string) => void): () => void;
	/** Jobs created since the last `arm` (earlier scenarios' jobs stay in the emulator). */
	scenarioJobs(): JobView[];
	/** Job IDs that existed at the last `arm`. */
	before: Set<string>;
}

export async function startFaultEmulator(): Promise<FaultEmulator> {
	const logLines: string[] = [];
	const listeners = new Set<(line: string) => void>();
	const emulator = await createEmulator({
		port: 0,
		apiKeys: [SECRET_KEY],
		...FAST_TIMING,
		heartbeatMs: 50,
		sseRetryMs: 20,
		retryAfterSeconds: 0,
		concurrency: 16,
		log: (line) => {
			logLines.push(line);
			for (const fn of [...listeners]) fn(line);
		},
	});
	const before = new Set<string>();
	return {
		emulator,
		logLines,
		before,
		scenarioJobs: () => emulator.jobs().filter((j) => !before.has(j.id)),
		onLog(fn) {
			listeners.add(fn);
			return () => listeners.delete(fn);
		},
	};
}

/**
 * Expires the signed URL of each job right after the emulator answered its first 303, i.e.
 * between the 303 and the client's download: the client must ask the job again.
 */
export function expireAfterFirst303(fault: FaultEmulator): () => void {
	const done = new Set<string>();
	return fault.onLog((line) => {
		const match = /^async GET \/jobs\/([^/\s]+) 303$/.exec(line);
		if (!match?.[1] || done.has(match[1])) return;
		done.add(match[1]);
		fault.emulator.expireCdnUrls();
	});
}

export type Expectation = 'delivered' | 'failed' | 'timed_out';

export interface Scenario {
	name: string;
	faults?: FaultConfig;
	timing?: { queueMs: number; runMs: number };
	waitMode: WaitMode;
	/** Appended to each prompt: `[fail]` / `[cancel]` make the emulator end the job so. */
	promptSuffix?: string;
	/** What each job must end as. */
	expect: Expectation;
	timeoutSeconds?: number;
	onTimeout?: OnTimeout;
	/** Expire each job's signed URL between its 303 and the download. */
	expireAfter303?: boolean;
	/** Needs a short SSE idle limit, which only the core exposes. */
	coreOnly?: boolean;
	/** Clear the catalogue cache so `/models` is really asked. */
	freshCatalogue?: boolean;
	/** Jobs in this scenario; default JOBS_PER_SCENARIO. */
	jobs?: number;
	/** Proof from the emulator's counters that the fault really happened. */
	fired?: (c: EmulatorCounters, jobs: number) => boolean;
}

const injected = (c: EmulatorCounters) => c.injectedErrors > 0;
const limited = (c: EmulatorCounters) => c.rateLimited > 0;

const LONG_RUN = { queueMs: 20, runMs: 60_000 };

export const SCENARIOS: Scenario[] = [
	{
		name: '5xx burst on GET /jobs/{id}',
		faults: { job: { errorBurst: 3 } },
		waitMode: 'poll',
		expect: 'delivered',
		fired: injected,
	},
	{
		name: '5xx burst on POST /queue',
		faults: { queue: { errorBurst: 2 } },
		waitMode: 'auto',
		expect: 'delivered',
		fired: injected,
	},
	{
		name: '5xx burst on /models',
		faults: { models: { errorBurst: 2 } },
		waitMode: 'auto',
		expect: 'delivered',
		freshCatalogue: true,
		fired: injected,
	},
	{
		name: '429 + Retry-After on submission',
		faults: { queue: { rateLimitBurst: 2, retryAfterSeconds: 1 } },
		waitMode: 'auto',
		expect: 'delivered',
		fired: limited,
	},
	{
		name: '429 + Retry-After on polling',
		faults: { job: { rateLimitBurst: 3, retryAfterSeconds: 1 } },
		waitMode: 'poll',
		expect: 'delivered',
		fired: limited,
	},
	{
		name: 'SSE dropped after 2 events',
		faults: { sseDropAfterEvents: 2 },
		waitMode: 'sse',
		expect: 'delivered',
		fired: (c, n) => c.sseConnections > n,
	},
	{
		name: 'SSE silent (no heartbeats)',
		faults: { sseSilent: true },
		waitMode: 'auto',
		expect: 'delivered',
		coreOnly: true,
		fired: (c) => c.sseConnections > 0 && c.requests.job > 0,
	},
	{
		name: 'SSE endpoint absent',
		faults: { sseDisabled: true },
		waitMode: 'auto',
		expect: 'delivered',
		fired: (c) => c.requests.events > 0 && c.sseConnections === 0,
	},
	{
		name: 'CDN slow',
		faults: { cdnSlowBytesPerSecond: 60_000 },
		waitMode: 'auto',
		expect: 'delivered',
	},
	{
		name: 'CDN body truncated',
		faults: { cdnTruncateAfterBytes: 4_000 },
		waitMode: 'auto',
		expect: 'delivered',
		fired: (c, n) => c.requests.cdn > n,
	},
	{
		name: 'CDN signature expired after the 303',
		waitMode: 'poll',
		expect: 'delivered',
		expireAfter303: true,
		fired: (c, n) => c.requests.cdn === 2 * n,
		// The emulator can only expire every URL at once: with one job, the fresh address
		// fetched after the refusal cannot be expired by another job's 303.
		jobs: 1,
	},
	{ name: 'job fails on the server', promptSuffix: ' [fail]', waitMode: 'auto', expect: 'failed' },
	{
		name: 'job cancelled on the server',
		promptSuffix: ' [cancel]',
		waitMode: 'auto',
		expect: 'failed',
	},
	{
		name: 'client timeout: fail',
		timing: LONG_RUN,
		waitMode: 'auto',
		timeoutSeconds: 0.4,
		onTimeout: 'fail',
		expect: 'failed',
	},
	{
		name: 'client timeout: return',
		timing: LONG_RUN,
		waitMode: 'auto',
		timeoutSeconds: 0.4,
		onTimeout: 'return',
		expect: 'timed_out',
	},
	{
		name: 'client timeout: cancel',
		timing: LONG_RUN,
		waitMode: 'poll',
		timeoutSeconds: 0.4,
		onTimeout: 'cancel',
		expect: 'timed_out',
		fired: (c, n) => c.jobsCancelled === n,
	},
];

/** Jobs per scenario: enough to run concurrently, few enough to stay fast. */
export const JOBS_PER_SCENARIO = 3;

export function jobsOf(scenario: Scenario): number {
	return scenario.jobs ?? JOBS_PER_SCENARIO;
}

export function promptsFor(scenario: Scenario): string[] {
	return Array.from(
		{ length: jobsOf(scenario) },
		(_v, i) => `fault ${scenario.name} #${i}${scenario.promptSuffix ?? ''}`,
	);
}

/** Applies a scenario's faults and timing to the emulator and zeroes its counters. */
export function arm(fault: FaultEmulator, scenario: Pick<Scenario, 'faults' | 'timing'>): void {
	// Jobs an earlier scenario left running (timeouts, cancelled executions) would hold the
	// emulator's workers and delay this scenario's jobs.
	for (const job of fault.emulator.jobs()) {
		if (job.status === 'queued' || job.status === 'running') fault.emulator.cancelJob(job.id);
	}
	fault.emulator.setFaults(scenario.faults ?? {});
	fault.emulator.setTiming(scenario.timing ?? FAST_TIMING);
	fault.emulator.resetCounters();
	fault.before.clear();
	for (const job of fault.emulator.jobs()) fault.before.add(job.id);
	fault.logLines.length = 0;
}

/** What a client reported for one scenario, whatever engine ran it. */
export interface Observed {
	/** Files handed to the user, by job. */
	delivered: Array<{ jobId: string; data: Buffer }>;
	/** Jobs reported as failed / cancelled / timed out with an error, by job. */
	failed: Array<{ jobId?: string; message: string }>;
	/** Jobs handed back as timed out (no error). */
	timedOut: Array<{ jobId: string; cancelled: boolean }>;
}

export interface Accounting {
	jobs: number;
	delivered: number;
	duplicates: number;
	mismatched: number;
	/** Outcomes that name no job, or a job the server never created. */
	orphans: number;
	outcomes: number;
}

export function account(fault: FaultEmulator, observed: Observed): Accounting {
	const { emulator } = fault;
	const created = new Set(fault.scenarioJobs().map((j) => j.id));
	const ids = [
		...observed.delivered.map((d) => d.jobId),
		...observed.failed.map((f) => f.jobId ?? ''),
		...observed.timedOut.map((t) => t.jobId),
	];
	const mismatched = observed.delivered.filter((d) => {
		const expected = emulator.expectedResult(d.jobId);
		return !expected || !expected.data.equals(d.data);
	}).length;
	return {
		jobs: emulator.counters().jobsCreated,
		delivered: observed.delivered.length,
		duplicates: ids.length - new Set(ids).size,
		mismatched,
		orphans: ids.filter((id) => !created.has(id)).length,
		outcomes: ids.length,
	};
}

export interface Row {
	engine: string;
	scenario: string;
	jobs: number;
	delivered: number;
	duplicates: number;
	leaks: number;
	result: 'pass' | 'FAIL';
}

/** Collects table rows for one spec file; `print` writes them once, in afterAll. */
export function createTable(title: string) {
	const rows: Row[] = [];
	return {
		rows,
		add(row: Omit<Row, 'result'>, ok: boolean) {
			rows.push({ ...row, result: ok ? 'pass' : 'FAIL' });
		},
		print() {
			const columns: Array<keyof Row> = [
				'engine',
				'scenario',
				'jobs',
				'delivered',
				'duplicates',
				'leaks',
				'result',
			];
			const cells = [columns, ...rows.map((r) => columns.map((c) => String(r[c])))];
			const widths = columns.map((_c, i) => Math.max(...cells.map((row) => row[i]!.length)));
			const line = (row: string[]) =>
				`| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
			const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
			const [header, ...body] = cells.map(line);
			process.stdout.write([`\n${title}`, header, rule, ...body, '', ''].join('\n'));
		},
	};
}

/** Rejects if `work` is not done within `ms`: a scenario must never hang. */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const limit = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
	});
	try {
		return await Promise.race([work, limit]);
	} finally {
		clearTimeout(timer);
	}
}

/** Per-scenario time bound: the longest scenario (429 + Retry-After) needs a few seconds. */
export const SCENARIO_LIMIT_MS = 15_000;

/**
 * The checks of every scenario, whatever engine ran it: one outcome per job created, none
 * duplicated, every file byte-identical, failures naming their job, the key nowhere.
 */
export function verify(
	table: ReturnType<typeof createTable>,
	engine: string,
	scenario: Scenario,
	fault: FaultEmulator,
	observed: Observed,
	texts: readonly string[],
): void {
	const a = account(fault, observed);
	const counters = fault.emulator.counters();
	const leaks =
		[...texts, ...fault.logLines].filter((t) => t.includes(SECRET_KEY)).length +
		counters.cdnAuthorizationHeaders;
	const n = jobsOf(scenario);
	const jobs = new Map(fault.scenarioJobs().map((j) => [j.id, j]));
	const actual = {
		jobsCreated: a.jobs,
		outcomes: a.outcomes,
		delivered: a.delivered,
		failed: observed.failed.length,
		timedOut: observed.timedOut.length,
		duplicates: a.duplicates,
		mismatchedFiles: a.mismatched,
		orphans: a.orphans,
		failuresWithoutJobId: observed.failed.filter((f) => !f.jobId || !f.message.includes(f.jobId))
			.length,
		cancelledAsReported: observed.timedOut.every(
			(t) => t.cancelled === (jobs.get(t.jobId)?.status === 'cancelled'),
		),
		faultFired: scenario.fired ? scenario.fired(counters, n) : true,
		leaks,
	};
	const wanted = {
		jobsCreated: n,
		outcomes: n,
		delivered: scenario.expect === 'delivered' ? n : 0,
		failed: scenario.expect === 'failed' ? n : 0,
		timedOut: scenario.expect === 'timed_out' ? n : 0,
		duplicates: 0,
		mismatchedFiles: 0,
		orphans: 0,
		failuresWithoutJobId: 0,
		cancelledAsReported: true,
		faultFired: true,
		leaks: 0,
	};
	const ok = JSON.stringify(actual) === JSON.stringify(wanted);
	// On a failure, show what the user was told.
	if (!ok) (actual as Record<string, unknown>).messages = observed.failed.map((f) => f.message);
	table.add(
		{
			engine,
			scenario: scenario.name,
			jobs: a.jobs,
			delivered: a.delivered,
			duplicates: a.duplicates,
			leaks,
		},
		ok,
	);
	expect(actual).toEqual(wanted);
	if (scenario.onTimeout === 'cancel') {
		expect(observed.timedOut.every((t) => t.cancelled)).toBe(true);
		for (const job of fault.scenarioJobs()) expect(job.status).toBe('cancelled');
	}
	if (scenario.onTimeout === 'return' || scenario.onTimeout === 'fail') {
		// Not lost: the job still runs on the service and the user holds its ID.
		for (const job of fault.scenarioJobs()) expect(['queued', 'running']).toContain(job.status);
	}
}
