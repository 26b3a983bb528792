/** Fault injection of the emulator, route by route, as tests of the client rely on it. */
import type { EmulatorRoute, RunningEmulator } from '../../emulator';
import {
	auth,
	call,
	completed,
	imageJob,
	pollUntil,
	readSse,
	startEmulator,
	submit,
} from './emulator-helpers';

describe('emulator: fault injection', () => {
	let emu: RunningEmulator;
	let doneJob: string;
	beforeAll(async () => {
		emu = await startEmulator({ seed: 42 });
		doneJob = (await submit(emu)).id;
		await pollUntil(emu, doneJob, completed);
	});
	afterAll(() => emu.close());
	afterEach(() => emu.setFaults({}));

	/** One request on each route, answered with its status. */
	const hit = async (route: EmulatorRoute): Promise<number> => {
		const json = auth(emu, { 'content-type': 'application/json' });
		switch (route) {
			case 'models':
				return (await call(`${emu.baseUrl}/models`, { headers: auth(emu) })).status;
			case 'queue':
				return (
					await call(`${emu.asyncUrl}/queue`, {
						method: 'POST',
						headers: json,
						body: JSON.stringify(imageJob),
					})
				).status;
			case 'job':
				return (await call(`${emu.asyncUrl}/jobs/${doneJob}`, { headers: auth(emu) })).status;
			case 'events':
				return (await readSse(`${emu.asyncUrl}/jobs/${doneJob}/events`, auth(emu))).status;
			case 'cancel':
				return (
					await call(`${emu.asyncUrl}/jobs/${doneJob}`, { method: 'DELETE', headers: auth(emu) })
				).status;
			case 'cdn': {
				const url = (
					await call(`${emu.asyncUrl}/jobs/${doneJob}`, { headers: auth(emu) })
				).headers.get('location');
				return (await call(url as string)).status;
			}
		}
	};
	const healthy: Record<EmulatorRoute, number> = {
		models: 200,
		queue: 202,
		job: 303,
		events: 200,
		cancel: 409,
		cdn: 200,
	};

	it.each(Object.keys(healthy) as EmulatorRoute[])(
		'errorBurst on %s fails the next N requests, then recovers',
		async (route) => {
			emu.resetCounters();
			emu.setFaults({ [route]: { errorBurst: 2 } });
			expect(await hit(route)).toBe(503);
			expect(await hit(route)).toBe(503);
			expect(await hit(route)).toBe(healthy[route]);
			expect(emu.counters().injectedErrors).toBe(2);
		},
	);

	it('errorStatus chooses the injected status, in the error shape', async () => {
		emu.setFaults({ models: { errorBurst: 1, errorStatus: 500 } });
		const r = await call(`${emu.baseUrl}/models`, { headers: auth(emu) });
		expect(r.status).toBe(500);
		expect((r.body as { error: { code: string } }).error.code).toBe('internal_error');
	});

	it('rateLimitBurst answers 429 with the configured Retry-After', async () => {
		emu.resetCounters();
		emu.setFaults({ queue: { rateLimitBurst: 1, retryAfterSeconds: 7 } });
		const body = JSON.stringify(imageJob);
		const headers = auth(emu, { 'content-type': 'application/json' });
		const limited = await call(`${emu.asyncUrl}/queue`, { method: 'POST', headers, body });
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('7');
		expect((await call(`${emu.asyncUrl}/queue`, { method: 'POST', headers, body })).status).toBe(
			202,
		);
		expect(emu.counters()).toMatchObject({ rateLimited: 1, jobsCreated: 1 });
	});

	it('errorRate is repeatable for a seed (and 0 and 1 mean never and always)', async () => {
		const pattern = async (target: RunningEmulator): Promise<number[]> => {
			target.setFaults({ models: { errorRate: 0.5 } });
			const statuses: number[] = [];
			for (let i = 0; i < 20; i++)
				statuses.push((await call(`${target.baseUrl}/models`, { headers: auth(target) })).status);
			return statuses;
		};
		const twin = await startEmulator({ seed: 42 });
		try {
			const a = await pattern(twin);
			const other = await startEmulator({ seed: 42 });
			try {
				expect(await pattern(other)).toEqual(a);
			} finally {
				await other.close();
			}
			expect(a).toContain(503);
			expect(a).toContain(200);
		} finally {
			await twin.close();
		}
		emu.setFaults({ models: { errorRate: 1 } });
		expect(await hit('models')).toBe(503);
		emu.setFaults({ models: { errorRate: 0 } });
		expect(await hit('models')).toBe(200);
	});

	it('latencyMs delays the answer by at least that long', async () => {
		emu.setFaults({ job: { latencyMs: 150 } });
		const started = Date.now();
		expect(await hit('job')).toBe(303);
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
	});

	it('sseDropAfterEvents closes each stream after N events', async () => {
		emu.setFaults({ sseDropAfterEvents: 1 });
		emu.setTiming({ queueMs: 60_000 });
		const job = await submit(emu);
		emu.setTiming({ queueMs: 20 });
		const sse = await readSse(`${emu.asyncUrl}/jobs/${job.id}/events`, auth(emu));
		expect(sse.ended).toBe(true);
		expect(sse.events).toHaveLength(1);
		emu.cancelJob(job.id);
	});

	it('setFaults replaces the whole configuration', async () => {
		emu.setFaults({ models: { errorBurst: 5 }, job: { errorBurst: 5 } });
		emu.setFaults({ job: { errorBurst: 1 } });
		expect(await hit('models')).toBe(200);
		expect(await hit('job')).toBe(503);
		emu.setFaults({});
		expect(await hit('job')).toBe(303);
	});
});
