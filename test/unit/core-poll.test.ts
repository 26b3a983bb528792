import { JobFailedError, NotFoundError, TimeoutError, AbortedError } from '../../core/errors';
import { TransportError } from '../../core/transport';
import { fakeClient, fakeTime, fakeTransport, ASYNC, SECRET } from './core-fakes';

const queued = (extra: Record<string, unknown> = {}) => ({
	status: 200,
	body: { id: 'j1', status: 'queued', ...extra },
});
const started = () => ({ status: 200, body: { id: 'j1', status: 'running' } });
const running = (progress: number) => ({
	status: 200,
	body: { id: 'j1', status: 'running', progress },
});
const done = {
	status: 303,
	headers: { location: 'https://cdn.render.test/r/j1.png?sig=abc' },
	body: '',
};

describe('polling', () => {
	it('polls at once, then starts quick and backs off to the ceiling while a job runs without hints', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.on('GET /jobs/j1', ...Array.from({ length: 8 }, () => started()), done);
		const outcome = await fakeClient(transport, time).wait('j1', { mode: 'poll' });
		expect(outcome).toMatchObject({
			kind: 'complete',
			resultUrl: 'https://cdn.render.test/r/j1.png?sig=abc',
			via: 'poll',
		});
		expect(time.sleeps).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
		expect(transport.requests).toHaveLength(9);
		expect(transport.requests.every((r) => r.auth && r.url === `${ASYNC}/jobs/j1`)).toBe(true);
	});

	it("takes the server's Retry-After as a floor under our schedule, not instead of it", async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		const hinted = (seconds: string) => ({ ...started(), headers: { 'retry-after': seconds } });
		transport.on(
			'GET /jobs/j1',
			...Array.from({ length: 6 }, () => hinted('1')),
			hinted('30'),
			done,
		);
		await fakeClient(transport, time).wait('j1', { mode: 'poll' });
		// A 1 s hint lengthens only the first wait; a 30 s hint is obeyed past our 15 s ceiling.
		expect(time.sleeps).toEqual([1000, 1000, 2000, 4000, 8000, 15_000, 30_000]);
	});

	it('while queued, waits at most 30 % of the time so far, so a job that starts soon is seen soon', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.on('GET /jobs/j1', ...Array.from({ length: 9 }, () => queued()), running(0), done);
		await fakeClient(transport, time).wait('j1', { mode: 'poll' });
		// 0.5 s until 30 % of the wait so far is longer; the running phase starts its own schedule.
		expect(time.sleeps).toEqual([500, 500, 500, 500, 600, 780, 1014, 1318, 1714, 500]);
	});

	it('polls just after the completion estimated from progress, within the hint', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		const hinted = (progress: number) => ({
			...running(progress),
			headers: { 'retry-after': '1' },
		});
		transport.on('GET /jobs/j1', hinted(0), hinted(0.1), done);
		const outcome = await fakeClient(transport, time).wait('j1', { mode: 'poll' });
		expect(outcome.kind).toBe('complete');
		// 10 % in the first second: the end is 9 s after the second poll; wait 9 s + 5 % + 0.25 s.
		expect(time.sleeps).toEqual([1000, 9700]);
		expect(transport.requests).toHaveLength(3);
	});

	it('after a missed estimate, falls back to short waits that grow again', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.on(
			'GET /jobs/j1',
			running(0),
			running(0.1),
			running(0.1),
			running(0.1),
			running(0.1),
			done,
		);
		await fakeClient(transport, time).wait('j1', { mode: 'poll' });
		// 0.5 s at first; 10 % in 0.5 s puts the end 4.5 s ahead (4.975 s with the margin); the
		// job is not done then, so 0.5 s, 1 s, 2 s.
		expect(time.sleeps).toEqual([500, 4975, 500, 1000, 2000]);
	});

	it('retries 408, 429, 5xx and network errors with backoff or Retry-After, never failing the job', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.on(
			'GET /jobs/j1',
			{ status: 503 },
			{ status: 429, headers: { 'retry-after': '7' } },
			new TransportError('socket hang up', { code: 'ECONNRESET', sent: true }),
			{ status: 408 },
			{ status: 502, headers: { 'retry-after': '1' } },
			running(0.2),
			done,
		);
		const outcome = await fakeClient(transport, time).wait('j1', { mode: 'poll' });
		expect(outcome.kind).toBe('complete');
		// 503 -> backoff(0)=500; 429 -> its 7 s; reset -> backoff(2)=2000; 408 -> backoff(3)=4000;
		// 502 with Retry-After -> 1 s; then the first regular poll interval.
		expect(time.sleeps).toEqual([500, 7000, 2000, 4000, 1000, 500]);
	});

	it('fails at once on a permanent error, naming the job', async () => {
		const transport = fakeTransport();
		transport.on('GET /jobs/j1', {
			status: 404,
			body: { error: { code: 'job_not_found', message: 'No job' } },
		});
		const error = await fakeClient(transport, fakeTime())
			.wait('j1', { mode: 'poll' })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NotFoundError);
		expect((error as NotFoundError).jobId).toBe('j1');
		expect(transport.requests).toHaveLength(1);
	});

	it('reports a failed job with the service code and message, scrubbed of secrets', async () => {
		const transport = fakeTransport();
		transport.on('GET /jobs/j1', {
			status: 200,
			body: {
				id: 'j1',
				status: 'error',
				error: { code: 'nsfw', message: `blocked for key ${SECRET}` },
			},
		});
		const error = await fakeClient(transport, fakeTime())
			.wait('j1', { mode: 'poll' })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(JobFailedError);
		expect(error).toMatchObject({ jobId: 'j1', serviceCode: 'nsfw' });
		expect(String((error as Error).message)).not.toContain(SECRET);
		expect(String((error as Error).message)).toContain('[redacted]');
	});

	it('understands other status words and a body URL instead of a 303', async () => {
		const transport = fakeTransport();
		transport.on(
			'GET /jobs/j1',
			{ status: 200, body: { job_id: 'j1', state: 'pending' } },
			{ status: 200, body: { job_id: 'j1', state: 'in_progress', progress: 40 } },
			{ status: 200, body: { job_id: 'j1', status: 'succeeded', result_url: '/files/j1.png' } },
		);
		const progress: number[] = [];
		const outcome = await fakeClient(transport, fakeTime()).wait('j1', {
			mode: 'poll',
			onProgress: (p) => p.progress !== undefined && progress.push(p.progress),
		});
		expect(outcome).toMatchObject({ kind: 'complete', resultUrl: `${ASYNC}/files/j1.png` });
		expect(progress).toEqual([0.4]);
	});

	it('ends at the overall timeout measured on the injected clock', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.on('GET /jobs/j1', running(0.1));
		const error = await fakeClient(transport, time)
			.wait('j1', { mode: 'poll', timeoutMs: 10_000 })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimeoutError);
		expect((error as TimeoutError).message).toContain('j1');
		expect(time.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
	});

	it('stops when aborted and names the job', async () => {
		const transport = fakeTransport();
		const controller = new AbortController();
		transport.on('GET /jobs/j1', () => {
			if (transport.requests.length === 3) controller.abort();
			return running(0.1);
		});
		const error = await fakeClient(transport, fakeTime())
			.wait('j1', { mode: 'poll', signal: controller.signal })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(AbortedError);
		expect((error as AbortedError).jobId).toBe('j1');
		expect(transport.requests).toHaveLength(3);
	});

	it.each([
		[404, false],
		[405, false],
		[501, false],
		[500, false],
		[204, true],
	])(
		'on timeout with cancel, a DELETE answered %i gives cancelled=%s without throwing',
		async (status, cancelled) => {
			const transport = fakeTransport();
			transport.on('GET /jobs/j1', running(0.1));
			transport.on('DELETE /jobs/j1', { status });
			const warnings: string[] = [];
			const client = fakeClient(transport, fakeTime(), {
				logger: { debug: () => undefined, warn: (m) => warnings.push(m) },
			});
			const outcome = await client.wait('j1', {
				mode: 'poll',
				timeoutMs: 3000,
				onTimeout: 'cancel',
			});
			expect(outcome).toMatchObject({
				kind: 'timed_out',
				jobId: 'j1',
				lastStatus: 'running',
				cancelled,
			});
			expect(transport.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
			expect(warnings.length).toBe(status === 500 ? 1 : 0);
		},
	);
});
