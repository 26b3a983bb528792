/**
 * Server-sent events of the emulator: event names and payloads (checked against the OpenAPI
 * components), ids, retry, heartbeats, Last-Event-ID resume, terminal behaviour, and the SSE
 * fault knobs.
 */
import type { RunningEmulator } from '../../emulator';
import { schemaErrors } from '../helpers/openapi';
import {
	auth,
	call,
	completed,
	imageJob,
	pollUntil,
	readSse,
	startEmulator,
	submit,
	type SseEvent,
} from './emulator-helpers';

const SCHEMAS: Record<string, string> = {
	status: 'StatusEvent',
	progress: 'ProgressEvent',
	complete: 'CompleteEvent',
	failed: 'FailedEvent',
	cancelled: 'CancelledEvent',
};

function expectValidEvents(events: SseEvent[]): void {
	for (const e of events) {
		const schema = SCHEMAS[e.event];
		expect(schema).toBeDefined();
		expect(schemaErrors(schema as string, JSON.parse(e.data))).toEqual([]);
	}
}

describe('emulator: SSE', () => {
	let emu: RunningEmulator;
	beforeAll(async () => {
		emu = await startEmulator({ queueMs: 30, runMs: 150, sseRetryMs: 1234 });
	});
	afterAll(() => emu.close());
	afterEach(() => emu.setFaults({}));

	const eventsUrl = (id: string): string => `${emu.asyncUrl}/jobs/${id}/events`;

	it('streams status, progress and complete with ids, retry, and ends after the terminal event', async () => {
		emu.resetCounters();
		const job = await submit(emu);
		const sse = await readSse(eventsUrl(job.id), auth(emu));
		expect(sse.status).toBe(200);
		expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
		expect(sse.retry).toBe(1234);
		expect(sse.ended).toBe(true);
		const names = sse.events.map((e) => e.event);
		expect(names[0]).toBe('status');
		expect(names).toContain('progress');
		expect(names[names.length - 1]).toBe('complete');
		expect(sse.events.map((e) => Number(e.id))).toEqual(sse.events.map((_e, i) => i + 1));
		expectValidEvents(sse.events);
		const statuses = sse.events
			.filter((e) => e.event === 'status')
			.map((e) => JSON.parse(e.data).status);
		expect(statuses).toEqual(expect.arrayContaining(['queued', 'running']));
		const complete = JSON.parse(sse.events[sse.events.length - 1]?.data ?? '{}') as { url: string };
		expect(complete.url.startsWith(`${emu.cdnUrl}/results/${job.id}.png?`)).toBe(true);
		const file = await fetch(complete.url);
		expect(file.status).toBe(200);
		expect(emu.counters().sseConnections).toBe(1);
	});

	it('resumes after Last-Event-ID with no event lost or repeated', async () => {
		emu.setFaults({ sseDropAfterEvents: 2 });
		const job = await submit(emu);
		const seen: SseEvent[] = [];
		let last: string | undefined;
		for (let attempt = 0; attempt < 20; attempt++) {
			const headers = last === undefined ? auth(emu) : auth(emu, { 'last-event-id': last });
			const sse = await readSse(eventsUrl(job.id), headers);
			expect(sse.ended).toBe(true);
			seen.push(...sse.events);
			last = seen[seen.length - 1]?.id ?? last;
			if (seen.some((e) => e.event === 'complete')) break;
		}
		const ids = seen.map((e) => Number(e.id));
		expect(ids).toEqual(ids.map((_id, i) => i + 1));
		expect(seen[seen.length - 1]?.event).toBe('complete');
		expectValidEvents(seen);
	});

	it('replays exactly the events after Last-Event-ID for a finished job', async () => {
		const job = await submit(emu);
		await pollUntil(emu, job.id, completed);
		const sse = await readSse(eventsUrl(job.id), auth(emu, { 'last-event-id': '2' }));
		expect(sse.events[0]?.id).toBe('3');
		expect(sse.events[sse.events.length - 1]?.event).toBe('complete');
		expect(sse.ended).toBe(true);
	});

	it('ends the stream with the terminal event even after a Last-Event-ID past it', async () => {
		const job = await submit(emu);
		await pollUntil(emu, job.id, completed);
		const full = await readSse(eventsUrl(job.id), auth(emu, { 'last-event-id': '0' }));
		const lastId = full.events[full.events.length - 1]?.id as string;
		const again = await readSse(eventsUrl(job.id), auth(emu, { 'last-event-id': lastId }));
		expect(again.ended).toBe(true);
		expect(again.events.map((e) => [e.id, e.event])).toEqual([[lastId, 'complete']]);
	});

	it('gives a job that is already terminal its terminal event at once', async () => {
		const done = await submit(emu, { ...imageJob, prompt: 'done already' });
		const failed = await submit(emu, { ...imageJob, prompt: 'will fail [fail]' });
		await pollUntil(emu, done.id, completed);
		await pollUntil(emu, failed.id, (r) => (r.body as { status?: string }).status === 'failed');
		emu.setTiming({ queueMs: 60_000 });
		const cancelled = await submit(emu);
		emu.setTiming({ queueMs: 30 });
		emu.cancelJob(cancelled.id);
		for (const [id, name] of [
			[done.id, 'complete'],
			[failed.id, 'failed'],
			[cancelled.id, 'cancelled'],
		]) {
			const sse = await readSse(eventsUrl(id as string), auth(emu));
			expect(sse.ended).toBe(true);
			expect(sse.events.map((e) => e.event)).toEqual([name]);
			expectValidEvents(sse.events);
		}
	});

	it('delivers a cancellation to an open stream and ends it', async () => {
		emu.setTiming({ queueMs: 60_000 });
		const job = await submit(emu);
		emu.setTiming({ queueMs: 30 });
		let deleting: Promise<unknown> | undefined;
		// Cancel only once the stream is live, so the event must travel over the open stream.
		const result = await readSse(eventsUrl(job.id), auth(emu), {
			onEvent: () => {
				deleting ??= call(`${emu.asyncUrl}/jobs/${job.id}`, {
					method: 'DELETE',
					headers: auth(emu),
				});
			},
		});
		await deleting;
		expect(result.ended).toBe(true);
		expect(result.events.map((e) => e.event)).toEqual(['status', 'cancelled']);
	});

	it('sends heartbeat comments while the job is idle', async () => {
		const beating = await startEmulator({ heartbeatMs: 20, queueMs: 60_000 });
		try {
			const job = await submit(beating);
			const sse = await readSse(`${beating.asyncUrl}/jobs/${job.id}/events`, auth(beating), {
				stopWhen: (r) => r.comments.filter((c) => c === 'heartbeat').length >= 2,
			});
			expect(sse.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(2);
			expect(sse.events.map((e) => e.event)).toEqual(['status']);
		} finally {
			await beating.close();
		}
	});

	it('sseSilent: opens the stream and sends nothing at all', async () => {
		emu.setFaults({ sseSilent: true });
		const job = await submit(emu);
		await pollUntil(emu, job.id, completed);
		const sse = await readSse(eventsUrl(job.id), auth(emu), { stopAfterMs: 300 });
		expect(sse.status).toBe(200);
		expect(sse.raw).toBe('');
		expect(sse.ended).toBe(false);
	});

	it('sseDisabled: answers 404 like a service without SSE', async () => {
		emu.setFaults({ sseDisabled: true });
		const job = await submit(emu);
		const r = await call(eventsUrl(job.id), { headers: auth(emu) });
		expect(r.status).toBe(404);
		expect((r.body as { error: { code: string } }).error.code).toBe('not_found');
	});

	it('answers 404 for an unknown job and 401 without a key, in the error shape', async () => {
		const unknown = await call(eventsUrl('nope'), { headers: auth(emu) });
		expect(unknown.status).toBe(404);
		const job = await submit(emu);
		const anonymous = await call(eventsUrl(job.id), {});
		expect(anonymous.status).toBe(401);
	});

	it('close() ends open streams', async () => {
		const other = await startEmulator({ queueMs: 60_000 });
		const job = await submit(other);
		const reading = readSse(`${other.asyncUrl}/jobs/${job.id}/events`, auth(other));
		await new Promise((resolve) => setTimeout(resolve, 50));
		await other.close();
		const sse = await reading;
		expect(sse.ended).toBe(true);
	});
});
