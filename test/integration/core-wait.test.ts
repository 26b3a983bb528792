import {
	RenderServiceError,
	TimeoutError,
	AbortedError,
	JobFailedError,
	JobCancelledError,
	ServiceError,
} from '../../core/errors';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import type { JobProgress } from '../../core/types';
import type { RunningEmulator } from '../../emulator';
import {
	makeClient,
	readAll,
	recordingSleep,
	request,
	spyOnEvents,
	startEmulator,
	totalRequests,
} from './core-harness';

let emulator: RunningEmulator;

beforeAll(async () => {
	emulator = await startEmulator();
});

afterEach(() => {
	// The CDN must never see the API key, in any test.
	expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
	emulator.setFaults({});
	emulator.setTiming({ queueMs: 50, runMs: 400 });
	// Long jobs left by timeout and abort tests would hold the emulator's workers.
	for (const job of emulator.jobs()) {
		if (job.status === 'queued' || job.status === 'running') emulator.cancelJob(job.id);
	}
	emulator.resetCounters();
});

afterAll(async () => {
	await emulator.close();
});

function expectNoKey(error: unknown): void {
	const text = `${String(error)} ${JSON.stringify(error)} ${(error as RenderServiceError).hint ?? ''}`;
	expect(text).not.toContain(emulator.apiKey);
}

describe('waiting by SSE', () => {
	it('resumes a dropped stream with Last-Event-ID, without a duplicated or missed event', async () => {
		emulator.setFaults({ sseDropAfterEvents: 2 });
		const spy = spyOnEvents(createAxiosTransport({ apiKey: emulator.apiKey }));
		const client = makeClient(emulator, { transport: spy.transport });
		const progress: JobProgress[] = [];
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, {
			mode: 'sse',
			onProgress: (p) => progress.push(p),
		});

		expect(outcome).toMatchObject({ kind: 'complete', jobId: job.jobId, via: 'sse' });
		expect(spy.connections.length).toBeGreaterThan(1);
		const ids = spy.connections.flatMap((c) => c.ids).map(Number);
		// Every event of the job's log arrived exactly once and in order: 1, 2, 3, ... n.
		expect(ids).toEqual(ids.map((_, i) => i + 1));
		for (let i = 1; i < spy.connections.length; i++) {
			const previous = spy.connections[i - 1]!;
			expect(spy.connections[i]!.request.lastEventId).toBe(previous.ids[previous.ids.length - 1]);
		}
		const fractions = progress.flatMap((p) => (p.progress === undefined ? [] : [p.progress]));
		expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
		expect(progress.every((p) => p.via === 'sse' && p.jobId === job.jobId)).toBe(true);
	});

	it('falls back to polling in auto mode when the service has no event stream', async () => {
		emulator.setFaults({ sseDisabled: true });
		const client = makeClient(emulator);
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, { mode: 'auto' });
		expect(outcome).toMatchObject({ kind: 'complete', via: 'poll' });
		expect(emulator.counters().requests.job).toBeGreaterThan(0);
	});

	it('refuses in sse mode when the service has no event stream, and says what to change', async () => {
		emulator.setFaults({ sseDisabled: true });
		const client = makeClient(emulator);
		const job = await client.submit(request());
		const error = await client.wait(job.jobId, { mode: 'sse' }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ServiceError);
		expect((error as ServiceError).jobId).toBe(job.jobId);
		expect((error as ServiceError).hint).toMatch(/Wait Mode/);
		expectNoKey(error);
	});

	it('falls back to polling when the stream stays silent past the idle limit', async () => {
		emulator.setFaults({ sseSilent: true });
		const client = makeClient(emulator, { sseIdleMs: 300 });
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, { mode: 'auto' });
		expect(outcome).toMatchObject({ kind: 'complete', via: 'poll' });
	});
});

describe('waiting by polling', () => {
	it('honours Retry-After on 429, measured with the injected sleep', async () => {
		emulator.setFaults({ job: { rateLimitBurst: 2, retryAfterSeconds: 3 } });
		const recorder = recordingSleep();
		const client = makeClient(emulator, { sleep: recorder.sleep, clock: recorder.clock });
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, { mode: 'poll' });
		expect(outcome.kind).toBe('complete');
		expect(recorder.sleeps.slice(0, 2)).toEqual([3000, 3000]);
		expect(emulator.counters().rateLimited).toBe(2);
	});

	it('survives a burst of 5xx answers without failing the job', async () => {
		emulator.setFaults({ job: { errorBurst: 5, errorStatus: 503 } });
		const recorder = recordingSleep();
		const client = makeClient(emulator, { sleep: recorder.sleep, clock: recorder.clock });
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, { mode: 'poll' });
		expect(outcome.kind).toBe('complete');
		expect(emulator.counters().injectedErrors).toBe(5);
	});

	it('reports a failed job with the service code and the job ID', async () => {
		const client = makeClient(emulator);
		for (const mode of ['poll', 'sse'] as const) {
			const job = await client.submit(request({ prompt: 'a cat [fail]' }));
			const error = await client.wait(job.jobId, { mode }).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(JobFailedError);
			expect((error as JobFailedError).jobId).toBe(job.jobId);
			expect((error as JobFailedError).message).toContain(job.jobId);
			expect((error as JobFailedError).serviceCode).toBeTruthy();
		}
	});

	it('reports a job cancelled on the service', async () => {
		const client = makeClient(emulator);
		for (const mode of ['poll', 'sse'] as const) {
			const job = await client.submit(request({ prompt: 'a cat [cancel]' }));
			const error = await client.wait(job.jobId, { mode }).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(JobCancelledError);
			expect((error as JobCancelledError).jobId).toBe(job.jobId);
		}
	});
});

describe('timeouts', () => {
	beforeEach(() => emulator.setTiming({ runMs: 60_000 }));

	it('fails with the job ID when asked to fail', async () => {
		const client = makeClient(emulator);
		const job = await client.submit(request());
		const error = await client
			.wait(job.jobId, { timeoutMs: 400, onTimeout: 'fail' })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimeoutError);
		expect((error as TimeoutError).jobId).toBe(job.jobId);
		expect((error as TimeoutError).message).toContain(job.jobId);
		expect(emulator.jobs().find((j) => j.id === job.jobId)?.status).not.toBe('cancelled');
	});

	it('returns the job as timed out when asked to return', async () => {
		const client = makeClient(emulator);
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, {
			mode: 'poll',
			timeoutMs: 400,
			onTimeout: 'return',
		});
		expect(outcome).toMatchObject({ kind: 'timed_out', jobId: job.jobId, cancelled: false });
		expect(emulator.jobs().find((j) => j.id === job.jobId)?.status).not.toBe('cancelled');
	});

	it('cancels the job on the service when asked to cancel', async () => {
		const client = makeClient(emulator);
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, { timeoutMs: 400, onTimeout: 'cancel' });
		expect(outcome).toMatchObject({ kind: 'timed_out', jobId: job.jobId, cancelled: true });
		expect(emulator.jobs().find((j) => j.id === job.jobId)?.status).toBe('cancelled');
		expect(emulator.counters().jobsCancelled).toBe(1);
	});

	it('tolerates a service that cannot cancel', async () => {
		emulator.setFaults({ cancel: { errorBurst: 1, errorStatus: 405 } });
		const client = makeClient(emulator);
		const job = await client.submit(request());
		const outcome = await client.wait(job.jobId, {
			mode: 'poll',
			timeoutMs: 300,
			onTimeout: 'cancel',
		});
		expect(outcome).toMatchObject({ kind: 'timed_out', cancelled: false });
	});
});

describe('abort', () => {
	beforeEach(() => emulator.setTiming({ runMs: 60_000 }));

	it.each(['sse', 'poll'] as const)(
		'stops every request when aborted mid-wait (%s)',
		async (mode) => {
			const client = makeClient(emulator);
			const job = await client.submit(request());
			const controller = new AbortController();
			const waiting = client.wait(job.jobId, { mode, signal: controller.signal });
			await new Promise((resolve) => setTimeout(resolve, 700));
			controller.abort();
			const error = await waiting.catch((e: unknown) => e);
			expect(error).toBeInstanceOf(AbortedError);
			expect((error as AbortedError).jobId).toBe(job.jobId);
			const after = totalRequests(emulator);
			await new Promise((resolve) => setTimeout(resolve, 1200));
			expect(totalRequests(emulator)).toBe(after);
		},
	);
});

describe('generate', () => {
	it('submits, waits and streams the result, byte-identical to what the CDN serves', async () => {
		const client = makeClient(emulator);
		const outcome = await client.generate(request());
		if (outcome.kind !== 'complete') throw new Error('expected complete');
		const data = await readAll(outcome.file.stream);
		const expected = emulator.expectedResult(outcome.job.jobId);
		expect(expected).toBeDefined();
		expect(data.equals(expected!.data)).toBe(true);
		expect(outcome.file.mimeType).toBe(expected!.mimeType);
		expect(outcome.file.fileName).toMatch(
			new RegExp(
				`^${outcome.job.jobId.replace(/[^A-Za-z0-9._-]/g, '_')}\\.(png|gif|jpg|webp|mp4)$`,
			),
		);
		expect(outcome.file.url).not.toContain(emulator.apiKey);
	});
});
