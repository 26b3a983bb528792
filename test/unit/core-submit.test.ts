import {
	BadResponseError,
	RateLimitedError,
	ServiceError,
	UnauthorizedError,
	ValidationError,
} from '../../core/errors';
import { TransportError } from '../../core/transport';
import { SUBMIT_MAX_ATTEMPTS } from '../../core/submit';
import { fakeClient, fakeTime, fakeTransport, MODELS, SECRET } from './core-fakes';
import type { GenerationRequest } from '../../core/types';

const req: GenerationRequest = {
	modality: 'image',
	family: 'flux',
	model: 'schnell',
	task: 't2i',
	format: '512',
	prompt: 'a fox',
};
const accepted = {
	status: 202,
	headers: { location: '/jobs/abc' },
	body: { id: 'abc', status: 'queued', queue_position: 2 },
};

function setup() {
	const transport = fakeTransport();
	const time = fakeTime();
	transport.on('GET /models', { status: 200, body: { models: MODELS } });
	return { transport, time, client: fakeClient(transport, time) };
}

const posts = (t: ReturnType<typeof fakeTransport>) =>
	t.requests.filter((r) => r.method === 'POST');

describe('submission retry rules', () => {
	it('sends one POST with an Idempotency-Key and reads the job', async () => {
		const { transport, client } = setup();
		transport.on('POST /queue', accepted);
		const job = await client.submit(req);
		expect(job).toMatchObject({
			jobId: 'abc',
			status: 'queued',
			queuePosition: 2,
			jobUrl: 'https://queue.render.test/jobs/abc',
		});
		const [post] = posts(transport);
		expect(post!.headers!['idempotency-key']).toBe(job.idempotencyKey);
		expect(JSON.parse(post!.body!)).toEqual(req);
	});

	it('resends after 429 once Retry-After has passed, with the same key', async () => {
		const { transport, time, client } = setup();
		transport.on('POST /queue', { status: 429, headers: { 'retry-after': '5' } }, accepted);
		await client.submit(req);
		expect(time.sleeps).toEqual([5000]);
		const [a, b] = posts(transport);
		expect(a!.headers!['idempotency-key']).toBe(b!.headers!['idempotency-key']);
	});

	it('resends a request that never left (connection refused)', async () => {
		const { transport, time, client } = setup();
		transport.on(
			'POST /queue',
			new TransportError('connect ECONNREFUSED', { code: 'ECONNREFUSED', sent: false }),
			accepted,
		);
		await client.submit(req);
		expect(posts(transport)).toHaveLength(2);
		expect(time.sleeps).toEqual([500]);
	});

	it('resends after 5xx or a drop after sending only with the same key', async () => {
		const { transport, client } = setup();
		transport.on(
			'POST /queue',
			{ status: 503 },
			new TransportError('socket hang up', { code: 'ECONNRESET', sent: true }),
			accepted,
		);
		await client.submit(req);
		const keys = posts(transport).map((r) => r.headers!['idempotency-key']);
		expect(keys).toHaveLength(3);
		expect(new Set(keys).size).toBe(1);
	});

	it('never resends a refused request (400/401/409/422)', async () => {
		for (const [status, type] of [
			[400, ValidationError],
			[422, ValidationError],
			[401, UnauthorizedError],
		] as const) {
			const { transport, client } = setup();
			transport.on('POST /queue', {
				status,
				body: { error: { code: 'x', message: 'bad', field: 'format' } },
			});
			const error = await client.submit(req).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(type);
			expect(posts(transport)).toHaveLength(1);
		}
	});

	it(`gives up after ${SUBMIT_MAX_ATTEMPTS} attempts`, async () => {
		const { transport, client } = setup();
		transport.on('POST /queue', { status: 429 });
		expect(await client.submit(req).catch((e: unknown) => e)).toBeInstanceOf(RateLimitedError);
		expect(posts(transport)).toHaveLength(SUBMIT_MAX_ATTEMPTS);
		const other = setup();
		other.transport.on('POST /queue', { status: 500, body: `internal error for ${SECRET}` });
		const error = await other.client.submit(req).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ServiceError);
		expect(JSON.stringify(error) + String(error)).not.toContain(SECRET);
	});

	it('reads the job ID from job_id, jobId, request_id or the Location header', async () => {
		for (const body of [{ job_id: 'k1' }, { jobId: 'k1' }, { request_id: 'k1' }, {}]) {
			const { transport, client } = setup();
			transport.on('POST /queue', {
				status: 202,
				headers: { location: 'https://queue.render.test/v2/jobs/k1' },
				body,
			});
			expect((await client.submit(req)).jobId).toBe('k1');
		}
		const { transport, client } = setup();
		transport.on('POST /queue', { status: 202, body: { ok: true } });
		expect(await client.submit(req).catch((e: unknown) => e)).toBeInstanceOf(BadResponseError);
	});

	it('sends an i2i input image as a data URL', async () => {
		const { transport, client } = setup();
		transport.on('POST /queue', accepted);
		await client.submit({
			...req,
			model: 'dev',
			task: 'i2i',
			format: '1024',
			image: { data: new Uint8Array([1, 2, 3]), mimeType: 'image/png' },
		});
		expect(JSON.parse(posts(transport)[0]!.body!).image).toBe('data:image/png;base64,AQID');
	});

	it('passes on a deprecation warning', async () => {
		const { transport, client } = setup();
		transport.on('POST /queue', accepted);
		const job = await client.submit({ ...req, model: 'old' });
		expect(job.warnings).toEqual([expect.stringContaining('deprecated')]);
	});
});
