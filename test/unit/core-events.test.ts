import { JobFailedError, UnauthorizedError, ServiceError } from '../../core/errors';
import { TransportError } from '../../core/transport';
import type { JobProgress } from '../../core/types';
import { fakeClient, fakeTime, fakeTransport, sseOf } from './core-fakes';

const done = { status: 303, headers: { location: 'https://cdn.render.test/j1.png' } };

describe('waiting by SSE', () => {
	it('resumes with Last-Event-ID after a drop and reports each event once', async () => {
		const transport = fakeTransport();
		const time = fakeTime(0, { hangFrom: 45_000 });
		transport.onSse(
			sseOf([
				{ event: '', data: '', retry: 800 },
				{ id: '1', event: 'status', data: { status: 'queued', queue_position: 1 } },
				'heartbeat',
				{ id: '2', event: 'status', data: { status: 'running' } },
			]),
			// The server replays event 2 after resuming; it must not be reported twice.
			sseOf([
				{ id: '2', event: 'status', data: { status: 'running' } },
				{ id: '3', event: 'progress', data: { progress: 0.5 } },
				{ id: '4', event: 'complete', data: { url: 'https://cdn.render.test/j1.png?sig=1' } },
			]),
		);
		const progress: JobProgress[] = [];
		const outcome = await fakeClient(transport, time).wait('j1', {
			mode: 'sse',
			onProgress: (p) => progress.push(p),
		});
		expect(outcome).toMatchObject({
			kind: 'complete',
			resultUrl: 'https://cdn.render.test/j1.png?sig=1',
			via: 'sse',
		});
		expect(transport.sse.map((r) => r.lastEventId)).toEqual([undefined, '2']);
		expect(transport.sse[0]!.url).toBe('https://queue.render.test/jobs/j1/events');
		expect(time.sleeps).toEqual([800]);
		expect(progress.map((p) => [p.status, p.queuePosition, p.progress])).toEqual([
			['queued', 1, undefined],
			['running', undefined, undefined],
			['running', undefined, 0.5],
		]);
	});

	it('reconnects with jittered backoff when the server gave no retry', async () => {
		const transport = fakeTransport();
		const time = fakeTime(0, { hangFrom: 45_000 });
		transport.onSse(
			sseOf([{ id: '1', event: 'status', data: { status: 'running' } }]),
			() => {
				throw new TransportError('refused', { code: 'ECONNREFUSED', sent: false });
			},
			sseOf([], 503, 'application/json'),
			() => ({ ...sseOf([], 429)(), headers: { 'retry-after': '6' } }),
			sseOf([{ id: '2', event: 'complete', data: { url: 'https://cdn.render.test/x.png' } }]),
		);
		const outcome = await fakeClient(transport, time).wait('j1', { mode: 'sse' });
		expect(outcome.kind).toBe('complete');
		expect(time.sleeps).toEqual([250, 500, 1000, 6000]);
		expect(transport.sse.map((r) => r.lastEventId)).toEqual([undefined, '1', '1', '1', '1']);
	});

	it('asks the job for its 303 when the complete event carries no address', async () => {
		const transport = fakeTransport();
		transport.on('GET /jobs/j1', done);
		transport.onSse(sseOf([{ id: '9', event: 'completed', data: {} }]));
		const outcome = await fakeClient(transport, fakeTime(0, { hangFrom: 45_000 })).wait('j1', {
			mode: 'sse',
		});
		expect(outcome).toMatchObject({
			kind: 'complete',
			resultUrl: 'https://cdn.render.test/j1.png',
		});
	});

	it('turns a failed event into JobFailedError with the service code', async () => {
		const transport = fakeTransport();
		transport.onSse(
			sseOf([
				{ id: '0', event: 'error', data: { message: 'stream will restart' } },
				{ id: '1', event: 'failed', data: { error: { code: 'oom', message: 'out of memory' } } },
			]),
		);
		const error = await fakeClient(transport, fakeTime(0, { hangFrom: 45_000 }))
			.wait('j1', { mode: 'sse' })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(JobFailedError);
		expect(error).toMatchObject({
			jobId: 'j1',
			serviceCode: 'oom',
			serviceMessage: 'out of memory',
		});
	});

	it('auto falls back to polling when the stream is refused or is not an event stream', async () => {
		for (const conn of [sseOf([], 404, 'application/json'), sseOf([], 200, 'application/json')]) {
			const transport = fakeTransport();
			transport.onSse(conn);
			transport.on('GET /jobs/j1', done);
			const outcome = await fakeClient(transport, fakeTime(0, { hangFrom: 45_000 })).wait('j1');
			expect(outcome).toMatchObject({ kind: 'complete', via: 'poll' });
		}
	});

	it('auto falls back to polling when the stream keeps failing', async () => {
		const transport = fakeTransport();
		transport.onSse(sseOf([], 503), sseOf([], 503), sseOf([], 503));
		transport.on('GET /jobs/j1', done);
		const outcome = await fakeClient(transport, fakeTime(0, { hangFrom: 45_000 })).wait('j1');
		expect(outcome).toMatchObject({ kind: 'complete', via: 'poll' });
		expect(transport.sse).toHaveLength(3);
	});

	it('auto falls back to polling when the stream opens and closes without events', async () => {
		const transport = fakeTransport();
		const time = fakeTime(0, { hangFrom: 45_000 });
		transport.onSse(sseOf(['heartbeat']), sseOf([]), sseOf(['heartbeat']));
		transport.on('GET /jobs/j1', done);
		const outcome = await fakeClient(transport, time).wait('j1');
		expect(outcome).toMatchObject({ kind: 'complete', via: 'poll' });
		expect(transport.sse).toHaveLength(3);
		expect(time.sleeps).toEqual([250, 500]);
	});

	it('auto falls back to polling when the stream is silent past the idle limit', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.onSse(() => ({
			status: 200,
			headers: { 'content-type': 'text/event-stream' },
			close: () => undefined,
			items: {
				[Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => undefined) }),
			},
		}));
		transport.on('GET /jobs/j1', done);
		const outcome = await fakeClient(transport, time, { sseIdleMs: 20_000 }).wait('j1');
		expect(outcome).toMatchObject({ kind: 'complete', via: 'poll' });
		expect(time.sleeps[0]).toBe(20_000);
	});

	it('sse mode refuses a service without events; a refused key is unauthorised in any mode', async () => {
		const transport = fakeTransport();
		transport.onSse(sseOf([], 404, 'application/json'));
		const error = await fakeClient(transport, fakeTime(0, { hangFrom: 45_000 }))
			.wait('j1', { mode: 'sse' })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ServiceError);
		const other = fakeTransport();
		other.onSse(sseOf([], 401, 'application/json'));
		const denied = await fakeClient(other, fakeTime(0, { hangFrom: 45_000 }))
			.wait('j1')
			.catch((e: unknown) => e);
		expect(denied).toBeInstanceOf(UnauthorizedError);
	});
});
