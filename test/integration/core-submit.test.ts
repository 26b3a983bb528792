import {
	RateLimitedError,
	ValidationError,
	UnauthorizedError,
	NotFoundError,
	type RenderServiceError,
} from '../../core/errors';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import type { RunningEmulator } from '../../emulator';
import { clearCatalogueCache } from '../../core/catalogue';
import { makeClient, recordingSleep, request, startEmulator } from './core-harness';

let emulator: RunningEmulator;

beforeAll(async () => {
	emulator = await startEmulator();
});

beforeEach(() => clearCatalogueCache());

afterEach(() => {
	expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
	emulator.setFaults({});
	emulator.resetCounters();
});

afterAll(async () => {
	await emulator.close();
});

function text(error: unknown): string {
	return `${String(error)} ${JSON.stringify(error)} ${(error as RenderServiceError).hint ?? ''}`;
}

describe('submission', () => {
	it('is resent after a 429 and its Retry-After, creating exactly one job', async () => {
		emulator.setFaults({ queue: { rateLimitBurst: 2, retryAfterSeconds: 2 } });
		const recorder = recordingSleep();
		const client = makeClient(emulator, { sleep: recorder.sleep, clock: recorder.clock });
		const job = await client.submit(request());
		expect(job.jobId).toBeTruthy();
		expect(recorder.sleeps).toEqual([2000, 2000]);
		const counters = emulator.counters();
		expect(counters.requests.queue).toBe(3);
		expect(counters.jobsCreated).toBe(1);
	});

	it('is resent with the same Idempotency-Key after a 5xx, so the service creates one job', async () => {
		emulator.setFaults({ queue: { errorBurst: 2, errorStatus: 503 } });
		const recorder = recordingSleep();
		const client = makeClient(emulator, { sleep: recorder.sleep, clock: recorder.clock });
		const job = await client.submit(request());
		expect(emulator.counters().jobsCreated).toBe(1);
		// Resubmitting with the key the job carries is recognised as the same job.
		const again = await client.submit(request(), { idempotencyKey: job.idempotencyKey });
		expect(again.jobId).toBe(job.jobId);
		expect(emulator.counters()).toMatchObject({ jobsCreated: 1, idempotentReplays: 1 });
	});

	it('gives up on a lasting rate limit with a RateLimitedError', async () => {
		emulator.setFaults({ queue: { rateLimitBurst: 10, retryAfterSeconds: 1 } });
		const recorder = recordingSleep();
		const client = makeClient(emulator, { sleep: recorder.sleep, clock: recorder.clock });
		const error = await client.submit(request()).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(RateLimitedError);
		expect(emulator.counters().jobsCreated).toBe(0);
		expect(text(error)).not.toContain(emulator.apiKey);
	});

	it('refuses an invalid request before sending it, naming the field and what to change', async () => {
		const client = makeClient(emulator);
		const error = await client.submit(request({ steps: 10 })).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ValidationError);
		expect((error as ValidationError).field).toBe('steps');
		expect((error as ValidationError).message).toBe(
			'Model flux/schnell has a fixed 4 steps; remove Steps.',
		);
		expect(emulator.counters().requests.queue).toBe(0);
	});

	it('maps the service own 422 to a ValidationError with its field', async () => {
		const client = makeClient(emulator);
		const error = await client
			.submit(request({ prompt: '   ' }), { skipValidation: true })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ValidationError);
		expect((error as ValidationError).field).toBe('prompt');
		expect((error as ValidationError).status).toBe(422);
	});

	it('sends an i2i input image the service accepts', async () => {
		const client = makeClient(emulator);
		const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		const job = await client.submit(
			request({
				model: 'dev',
				task: 'i2i',
				image: { data: png, mimeType: 'image/png' },
				steps: 10,
				guidance: 2,
			}),
		);
		expect(emulator.jobs().find((j) => j.id === job.jobId)?.request.image).toBe(
			`data:image/png;base64,${png.toString('base64')}`,
		);
	});

	it('reports a wrong key as unauthorised, without echoing any key', async () => {
		const wrongKey = 'rs_wrong_key_abcdef0123456789';
		const client = makeClient(emulator, {
			transport: createAxiosTransport({ apiKey: wrongKey }),
			secrets: [wrongKey],
		});
		const error = await client.listModels().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(UnauthorizedError);
		expect((error as UnauthorizedError).hint).toMatch(/API key/);
		expect(text(error)).not.toContain(wrongKey);
	});

	it('reports an unknown job as not found, naming it', async () => {
		const client = makeClient(emulator);
		const error = await client.getJob('no-such-job').catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NotFoundError);
		expect((error as NotFoundError).message).toContain('no-such-job');
	});
});

describe('catalogue', () => {
	it('lists models with filters and answers again from the cache', async () => {
		const client = makeClient(emulator);
		const all = await client.listModels();
		expect(all.length).toBeGreaterThan(1);
		const flux = await client.listModels({ family: 'flux' });
		expect(flux.length).toBeGreaterThan(0);
		expect(flux.every((m) => m.family === 'flux')).toBe(true);
		const requests = emulator.counters().requests.models;
		const catalogue = await client.catalogue();
		expect(emulator.counters().requests.models).toBe(requests);
		expect(catalogue.steps('flux', 'schnell')).toEqual({ fixed: 4 });
		expect(catalogue.guidance('flux', 'dev')).toEqual([1, 10]);
		expect(catalogue.families()).toContain('flux');
	});

	it('retries a transient catalogue failure', async () => {
		emulator.setFaults({ models: { errorBurst: 1, errorStatus: 502 } });
		const recorder = recordingSleep();
		const client = makeClient(emulator, { sleep: recorder.sleep, clock: recorder.clock });
		const models = await client.listModels({}, { fresh: true });
		expect(models.length).toBeGreaterThan(0);
		expect(emulator.counters().requests.models).toBe(2);
	});
});
