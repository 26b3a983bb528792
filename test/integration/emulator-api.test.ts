/**
 * The emulator's catalogue and queue tier over real HTTP: every endpoint, every error code,
 * idempotency, queue positions, and OpenAPI validation of each reply (done inside `call`).
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import {
	auth,
	call,
	completed,
	imageJob,
	pollUntil,
	sleep,
	startEmulator,
	submit,
} from './emulator-helpers';

type ErrorBody = { error: { code: string; message: string; field?: string } };

describe('emulator: catalogue and jobs', () => {
	let emu: RunningEmulator;
	beforeAll(async () => {
		emu = await startEmulator({
			apiKeys: ['rs_test_key_one', 'rs_test_key_two'],
			maxBodyBytes: 64 * 1024,
		});
	});
	afterAll(() => emu.close());

	const models = (query = ''): Promise<{ models: Array<{ family: string; modality: string }> }> =>
		call(`${emu.baseUrl}/models${query}`, { headers: auth(emu) }).then((r) => {
			expect(r.status).toBe(200);
			return r.body as { models: Array<{ family: string; modality: string }> };
		});

	it('serves three origins on three different ports', () => {
		const ports = [emu.baseUrl, emu.asyncUrl, emu.cdnUrl].map((u) => new URL(u).port);
		expect(new Set(ports).size).toBe(3);
		expect(emu.apiKey).toBe('rs_test_key_one');
	});

	describe('GET /models', () => {
		it('lists the whole catalogue without filters, and with empty filter values', async () => {
			const all = await models();
			expect(all.models.length).toBeGreaterThan(5);
			expect((await models('?family=&modality=')).models).toEqual(all.models);
		});

		it('filters by family, by modality, and by both combined', async () => {
			const flux = await models('?family=flux');
			expect(flux.models.length).toBeGreaterThan(0);
			expect(flux.models.every((m) => m.family === 'flux')).toBe(true);
			const video = await models('?modality=video');
			expect(video.models.length).toBeGreaterThan(0);
			expect(video.models.every((m) => m.modality === 'video')).toBe(true);
			expect((await models('?family=flux&modality=video')).models).toEqual([]);
			expect((await models('?family=motion&modality=video')).models.length).toBeGreaterThan(0);
		});

		it('gives an empty list for unknown filter values', async () => {
			expect((await models('?family=nope')).models).toEqual([]);
			expect((await models('?modality=audio')).models).toEqual([]);
		});
	});

	describe('authentication', () => {
		it.each([
			['no Authorization header', {}],
			['an unknown key', { authorization: 'Bearer rs_wrong_secret_123' }],
			['a non-Bearer scheme', { authorization: 'Basic abc' }],
		])(
			'answers 401 with WWW-Authenticate for %s, never echoing the key',
			async (_label, headers) => {
				for (const url of [`${emu.baseUrl}/models`, `${emu.asyncUrl}/jobs/x`]) {
					const r = await call(url, { headers });
					expect(r.status).toBe(401);
					expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
					expect((r.body as ErrorBody).error.code).toBe('unauthorized');
					expect(r.text).not.toContain('rs_wrong_secret_123');
				}
			},
		);

		it('accepts every configured key', async () => {
			const r = await call(`${emu.baseUrl}/models`, {
				headers: { authorization: 'Bearer rs_test_key_two' },
			});
			expect(r.status).toBe(200);
		});
	});

	describe('routing errors', () => {
		it('answers 404 in the error shape for unknown routes on every origin', async () => {
			for (const url of [`${emu.baseUrl}/nope`, `${emu.asyncUrl}/models`, `${emu.cdnUrl}/nope`]) {
				const r = await call(url, { headers: {} });
				expect(r.status).toBe(404);
				expect((r.body as ErrorBody).error.code).toBe('not_found');
			}
		});

		it.each([
			['POST', '/models', 'base', 'GET'],
			['GET', '/queue', 'async', 'POST'],
			['PUT', '/jobs/abc', 'async', 'GET, DELETE'],
			['POST', '/jobs/abc/events', 'async', 'GET'],
		])('answers 405 with Allow to %s %s', async (method, path, origin, allow) => {
			const base = origin === 'base' ? emu.baseUrl : emu.asyncUrl;
			const r = await call(`${base}${path}`, { method, headers: auth(emu) });
			expect(r.status).toBe(405);
			expect(r.headers.get('allow')).toBe(allow);
			expect((r.body as ErrorBody).error.code).toBe('method_not_allowed');
		});
	});

	describe('POST /queue', () => {
		const post = (body: string, headers: Record<string, string> = {}) =>
			call(`${emu.asyncUrl}/queue`, {
				method: 'POST',
				headers: auth(emu, { 'content-type': 'application/json', ...headers }),
				body,
			});

		it('accepts a job with 202, a job ID, queued status, a queue position and a Location', async () => {
			const r = await post(JSON.stringify(imageJob));
			expect(r.status).toBe(202);
			const body = r.body as { id: string; status: string; queue_position: number };
			expect(body.status).toBe('queued');
			expect(body.queue_position).toBeGreaterThanOrEqual(0);
			expect(r.headers.get('location')).toBe(`${emu.asyncUrl}/jobs/${body.id}`);
		});

		it('answers 400 to malformed JSON and to a body that is not an object', async () => {
			const bad = await post('{"prompt": ');
			expect(bad.status).toBe(400);
			expect((bad.body as ErrorBody).error.code).toBe('invalid_json');
			const list = await post('[1,2]');
			expect(list.status).toBe(400);
			expect((list.body as ErrorBody).error.code).toBe('invalid_body');
		});

		it('answers 413 to a body over the size cap, and keeps serving', async () => {
			const huge = JSON.stringify({ ...imageJob, prompt: 'x'.repeat(200 * 1024) });
			const r = await post(huge);
			expect(r.status).toBe(413);
			expect((r.body as ErrorBody).error.code).toBe('payload_too_large');
			expect((await post(JSON.stringify(imageJob))).status).toBe(202);
		});

		it('answers 422 naming the field for a semantic error', async () => {
			const r = await post(JSON.stringify({ ...imageJob, model: 'schnell', steps: 12 }));
			expect(r.status).toBe(422);
			expect((r.body as ErrorBody).error).toMatchObject({
				code: 'steps_not_adjustable',
				field: 'steps',
			});
		});

		it('accepts i2i with a data: URL image', async () => {
			const image = `data:image/png;base64,${Buffer.alloc(3000, 7).toString('base64')}`;
			const r = await post(JSON.stringify({ ...imageJob, task: 'i2i', image }));
			expect(r.status).toBe(202);
		});

		it('marks a deprecated model with a Deprecation header', async () => {
			const r = await post(JSON.stringify({ ...imageJob, family: 'sdxl', model: 'turbo' }));
			expect(r.status).toBe(202);
			expect(r.headers.get('deprecation')).toBe('true');
		});
	});

	describe('Idempotency-Key', () => {
		it('replays the same job for the same key and body, whatever the key order', async () => {
			emu.resetCounters();
			const key = { 'idempotency-key': 'idem-replay-1' };
			const first = await submit(emu, imageJob, key);
			const reordered = Object.fromEntries(Object.entries(imageJob).reverse());
			const again = await call(`${emu.asyncUrl}/queue`, {
				method: 'POST',
				headers: auth(emu, { 'content-type': 'application/json', ...key }),
				body: JSON.stringify(reordered, null, 2),
			});
			expect(again.status).toBe(202);
			expect((again.body as { id: string }).id).toBe(first.id);
			expect(again.headers.get('idempotent-replayed')).toBe('true');
			expect(emu.counters()).toMatchObject({ jobsCreated: 1, idempotentReplays: 1 });
		});

		it('answers 409 for the same key with a different body', async () => {
			const key = { 'idempotency-key': 'idem-conflict-1' };
			await submit(emu, imageJob, key);
			const r = await call(`${emu.asyncUrl}/queue`, {
				method: 'POST',
				headers: auth(emu, { 'content-type': 'application/json', ...key }),
				body: JSON.stringify({ ...imageJob, prompt: 'something else' }),
			});
			expect(r.status).toBe(409);
			expect((r.body as ErrorBody).error.code).toBe('idempotency_conflict');
		});

		it('scopes keys per API key', async () => {
			const key = { 'idempotency-key': 'idem-scoped-1' };
			const mine = await submit(emu, imageJob, key);
			const theirs = await call(`${emu.asyncUrl}/queue`, {
				method: 'POST',
				headers: {
					authorization: 'Bearer rs_test_key_two',
					'content-type': 'application/json',
					...key,
				},
				body: JSON.stringify({ ...imageJob, prompt: 'different body, other key' }),
			});
			expect(theirs.status).toBe(202);
			expect((theirs.body as { id: string }).id).not.toBe(mine.id);
		});

		it('answers 400 to a malformed key', async () => {
			const r = await call(`${emu.asyncUrl}/queue`, {
				method: 'POST',
				headers: auth(emu, {
					'content-type': 'application/json',
					'idempotency-key': 'x'.repeat(300),
				}),
				body: JSON.stringify(imageJob),
			});
			expect(r.status).toBe(400);
			expect((r.body as ErrorBody).error.code).toBe('invalid_idempotency_key');
		});
	});

	describe('GET /jobs/{id}', () => {
		it('shows queued (with position and Retry-After), then running (with progress), then 303 to the CDN', async () => {
			// Generous queue time: the first poll must still find the job queued on a busy CI machine.
			emu.setTiming({ queueMs: 800, runMs: 300 });
			const job = await submit(emu);
			emu.setTiming({ queueMs: 20, runMs: 60 });
			const queued = await call(`${emu.asyncUrl}/jobs/${job.id}`, { headers: auth(emu) });
			expect(queued.status).toBe(200);
			expect(queued.body).toMatchObject({ id: job.id, status: 'queued' });
			expect((queued.body as { queue_position: number }).queue_position).toBeGreaterThanOrEqual(0);
			expect(queued.headers.get('retry-after')).toBe('1');
			const running = await pollUntil(
				emu,
				job.id,
				(r) => (r.body as { status?: string }).status === 'running',
			);
			expect((running.body as { progress: number }).progress).toBeGreaterThanOrEqual(0);
			expect(running.headers.get('retry-after')).toBe('1');
			const done = await pollUntil(emu, job.id, completed);
			const location = done.headers.get('location') as string;
			expect(location.startsWith(`${emu.cdnUrl}/results/${job.id}.png?`)).toBe(true);
			expect(done.body).toEqual({ id: job.id, status: 'complete', url: location });
		});

		it('answers 404 for an unknown job and for a job of another API key', async () => {
			const unknown = await call(`${emu.asyncUrl}/jobs/does-not-exist`, { headers: auth(emu) });
			expect(unknown.status).toBe(404);
			expect((unknown.body as ErrorBody).error.code).toBe('job_not_found');
			const job = await submit(emu);
			const other = await call(`${emu.asyncUrl}/jobs/${job.id}`, {
				headers: { authorization: 'Bearer rs_test_key_two' },
			});
			expect(other.status).toBe(404);
		});

		it('shows a failed job with its error and no Retry-After', async () => {
			const job = await submit(emu, { ...imageJob, prompt: 'forbidden picture [fail]' });
			const failed = await pollUntil(
				emu,
				job.id,
				(r) => (r.body as { status?: string }).status === 'failed',
			);
			expect((failed.body as { error: { code: string } }).error.code).toBe('content_policy');
			expect(failed.headers.get('retry-after')).toBeNull();
		});

		it('shows a job cancelled server-side by the [cancel] prompt token', async () => {
			const job = await submit(emu, { ...imageJob, prompt: 'gets cancelled [cancel]' });
			const r = await pollUntil(
				emu,
				job.id,
				(x) => (x.body as { status?: string }).status === 'cancelled',
			);
			expect((r.body as { error: { code: string } }).error.code).toBe('cancelled');
		});

		it('reflects failJob and cancelJob called in-process', async () => {
			emu.setTiming({ queueMs: 5000 });
			const a = await submit(emu);
			const b = await submit(emu);
			emu.setTiming({ queueMs: 20 });
			emu.failJob(a.id, 'gpu_lost', 'The GPU went away.');
			emu.cancelJob(b.id);
			const ra = await call(`${emu.asyncUrl}/jobs/${a.id}`, { headers: auth(emu) });
			expect(ra.body).toEqual({
				id: a.id,
				status: 'failed',
				error: { code: 'gpu_lost', message: 'The GPU went away.' },
			});
			const rb = await call(`${emu.asyncUrl}/jobs/${b.id}`, { headers: auth(emu) });
			expect((rb.body as { status: string }).status).toBe('cancelled');
			expect(emu.jobs().find((j) => j.id === a.id)).toMatchObject({
				status: 'failed',
				request: { prompt: imageJob.prompt },
			});
		});
	});

	describe('DELETE /jobs/{id}', () => {
		it('cancels a queued job, again idempotently, and refuses a complete one with 409', async () => {
			emu.setTiming({ queueMs: 5000 });
			const job = await submit(emu);
			emu.setTiming({ queueMs: 20 });
			const del = () =>
				call(`${emu.asyncUrl}/jobs/${job.id}`, { method: 'DELETE', headers: auth(emu) });
			const first = await del();
			expect(first.status).toBe(200);
			expect((first.body as { status: string }).status).toBe('cancelled');
			expect((await del()).status).toBe(200);
			const done = await submit(emu);
			await pollUntil(emu, done.id, completed);
			const late = await call(`${emu.asyncUrl}/jobs/${done.id}`, {
				method: 'DELETE',
				headers: auth(emu),
			});
			expect(late.status).toBe(409);
			expect((late.body as ErrorBody).error.code).toBe('job_not_cancellable');
			const unknown = await call(`${emu.asyncUrl}/jobs/nope`, {
				method: 'DELETE',
				headers: auth(emu),
			});
			expect(unknown.status).toBe(404);
		});

		it('cancels a running job', async () => {
			emu.setTiming({ runMs: 5000 });
			const job = await submit(emu);
			emu.setTiming({ runMs: 60 });
			await pollUntil(emu, job.id, (r) => (r.body as { status?: string }).status === 'running');
			const r = await call(`${emu.asyncUrl}/jobs/${job.id}`, {
				method: 'DELETE',
				headers: auth(emu),
			});
			expect((r.body as { status: string }).status).toBe('cancelled');
		});
	});
});

describe('emulator: bounded worker pool', () => {
	let emu: RunningEmulator;
	beforeAll(async () => {
		// queueMs leaves time to submit all three before the first one starts.
		emu = await startEmulator({ concurrency: 1, queueMs: 500, runMs: 300 });
	});
	afterAll(() => emu.close());

	it('queues jobs behind the pool, so queue_position is real and moves up', async () => {
		const a = await submit(emu, { ...imageJob, prompt: 'first' });
		const b = await submit(emu, { ...imageJob, prompt: 'second' });
		const c = await submit(emu, { ...imageJob, prompt: 'third' });
		expect([a.queue_position, b.queue_position, c.queue_position]).toEqual([0, 1, 2]);
		await pollUntil(emu, a.id, (r) => (r.body as { status?: string }).status === 'running');
		const cNow = await call(`${emu.asyncUrl}/jobs/${c.id}`, { headers: auth(emu) });
		expect(cNow.body).toMatchObject({ status: 'queued', queue_position: 1 });
		// Only one job runs at a time.
		expect(emu.jobs().filter((j) => j.status === 'running').length).toBeLessThanOrEqual(1);
		await pollUntil(emu, c.id, completed);
		const views = emu.jobs();
		const byId = (id: string) => views.find((v) => v.id === id);
		expect((byId(b.id)?.startedAt ?? 0) >= (byId(a.id)?.completedAt ?? Infinity)).toBe(true);
		expect((byId(c.id)?.startedAt ?? 0) >= (byId(b.id)?.completedAt ?? Infinity)).toBe(true);
	});
});

describe('emulator: rate limit and admin routes', () => {
	it('answers 429 with Retry-After once a key has used its bucket', async () => {
		const emu = await startEmulator({ rateLimit: { capacity: 2, refillPerSecond: 0.5 } });
		try {
			const get = () => call(`${emu.baseUrl}/models`, { headers: auth(emu) });
			expect((await get()).status).toBe(200);
			expect((await get()).status).toBe(200);
			const limited = await get();
			expect(limited.status).toBe(429);
			expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
			expect((limited.body as ErrorBody).error.code).toBe('rate_limited');
			expect(emu.counters().rateLimited).toBe(1);
		} finally {
			await emu.close();
		}
	});

	it('has no admin routes unless enabled', async () => {
		const emu = await startEmulator();
		try {
			expect((await call(`${emu.asyncUrl}/__admin/counters`)).status).toBe(404);
		} finally {
			await emu.close();
		}
	});

	it('serves counters, faults, timing, jobs, reset and job control when enabled', async () => {
		const emu = await startEmulator({ admin: true });
		try {
			const admin = (path: string, method = 'GET', body?: unknown) =>
				call(`${emu.asyncUrl}/__admin/${path}`, {
					method,
					headers: { 'content-type': 'application/json' },
					body: body === undefined ? undefined : JSON.stringify(body),
				});
			await call(`${emu.baseUrl}/models`, { headers: auth(emu) });
			const counters = await admin('counters');
			expect((counters.body as { requests: { models: number } }).requests.models).toBe(1);
			expect((await admin('faults', 'POST', { models: { errorBurst: 1 } })).status).toBe(200);
			expect((await admin('faults')).body).toEqual({ models: { errorBurst: 1 } });
			expect((await call(`${emu.baseUrl}/models`, { headers: auth(emu) })).status).toBe(503);
			expect((await admin('faults', 'POST', {})).status).toBe(200);
			expect((await admin('timing', 'POST', { queueMs: 5000 })).status).toBe(200);
			const job = await submit(emu);
			const jobs = (await admin('jobs')).body as { jobs: Array<{ id: string; status: string }> };
			expect(jobs.jobs.find((j) => j.id === job.id)?.status).toBe('queued');
			expect(
				(await admin(`jobs/${job.id}/fail`, 'POST', { code: 'oops', message: 'Oops.' })).status,
			).toBe(200);
			expect(emu.jobs().find((j) => j.id === job.id)?.error).toEqual({
				code: 'oops',
				message: 'Oops.',
			});
			const other = await submit(emu);
			expect((await admin(`jobs/${other.id}/cancel`, 'POST')).status).toBe(200);
			expect((await admin('jobs/nope/cancel', 'POST')).status).toBe(404);
			expect((await admin('expire-cdn-urls', 'POST')).status).toBe(200);
			expect((await admin('reset', 'POST')).status).toBe(200);
			expect(emu.counters().requests.models).toBe(0);
			expect((await admin('counters', 'DELETE')).status).toBe(405);
		} finally {
			await emu.close();
		}
	});
});

describe('emulator: close', () => {
	it('stops all three origins', async () => {
		const emu = await startEmulator();
		await emu.close();
		for (const url of [emu.baseUrl, emu.asyncUrl, emu.cdnUrl]) {
			await expect(fetch(`${url}/models`)).rejects.toThrow();
		}
		await sleep(0);
	});
});

describe('emulator: bad input never crashes it', () => {
	let emu: RunningEmulator;
	beforeAll(async () => {
		emu = await startEmulator({ maxBodyBytes: 32 * 1024 });
	});
	afterAll(() => emu.close());

	const stillServes = async (): Promise<void> => {
		expect((await call(`${emu.baseUrl}/models`, { headers: auth(emu) })).status).toBe(200);
	};

	it('answers garbage that is not HTTP with a 400 in the error shape', async () => {
		for (const origin of [emu.baseUrl, emu.asyncUrl, emu.cdnUrl]) {
			const { hostname, port } = new URL(origin);
			const reply = await new Promise<string>((resolve, reject) => {
				const socket = connect(Number(port), hostname, () => socket.write('HELLO THERE\r\n\r\n'));
				let data = '';
				socket.on('data', (chunk) => (data += chunk.toString()));
				socket.on('end', () => resolve(data));
				socket.on('error', reject);
			});
			expect(reply).toMatch(/^HTTP\/1\.1 400/);
			expect(reply).toContain('"error"');
		}
		await stillServes();
	});

	it('answers 400 to a job ID with broken percent-encoding', async () => {
		const r = await call(`${emu.asyncUrl}/jobs/%E0%A4%A`, { headers: auth(emu) });
		expect(r.status).toBe(400);
		expect((r.body as ErrorBody).error.code).toBe('invalid_url');
	});

	it('answers 413 to a chunked body over the cap (no Content-Length)', async () => {
		const status = await new Promise<number>((resolve, reject) => {
			const req = request(
				`${emu.asyncUrl}/queue`,
				{ method: 'POST', headers: auth(emu, { 'content-type': 'application/json' }) },
				(res) => {
					res.resume();
					resolve(res.statusCode ?? 0);
				},
			);
			req.on('error', reject);
			for (let i = 0; i < 8; i++) req.write('x'.repeat(8 * 1024));
			req.end();
		});
		expect(status).toBe(413);
		await stillServes();
	});

	it('survives a client that disconnects in the middle of a body', async () => {
		await new Promise<void>((resolve) => {
			const req = request(`${emu.asyncUrl}/queue`, {
				method: 'POST',
				headers: auth(emu, { 'content-type': 'application/json', 'content-length': '5000' }),
			});
			req.on('error', () => resolve());
			req.write('{"modality":', () => setTimeout(() => req.destroy(), 20));
			req.on('close', () => resolve());
		});
		await stillServes();
	});
});
