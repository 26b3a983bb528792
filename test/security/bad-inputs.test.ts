/**
 * Every bad input of docs/troubleshooting.md, through the client core (whose messages both
 * engines show): the message a user sees, that no job was submitted where validation could
 * know better, and that a job already submitted is not lost (its ID is in the message and the
 * job still completes on the service).
 */
import { createConnection } from 'node:net';

import { createRenderClient } from '../../core/client';
import { RenderServiceError } from '../../core/errors';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import type { RenderClientOptions } from '../../core/api';
import type { GenerationRequest } from '../../core/types';
import { createEmulator, type RunningEmulator } from '../../emulator';
import { deepText, SECRET_KEY } from '../helpers/fault-capture';
import { bounded } from '../helpers/fault-matrix';
import { until } from '../helpers/until';
import { ONE_MODEL, sendJson, startServer, type TestServer } from '../helpers/fault-servers';
import { request } from '../integration/core-harness';

jest.setTimeout(20_000);

let emulator: RunningEmulator;
const servers: TestServer[] = [];

beforeAll(async () => {
	emulator = await createEmulator({ port: 0, apiKeys: [SECRET_KEY], queueMs: 20, runMs: 100 });
});
beforeEach(() => emulator.resetCounters());
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => emulator.close());

function client(options: Partial<RenderClientOptions> & { apiKey?: string } = {}) {
	const { apiKey = SECRET_KEY, ...rest } = options;
	return createRenderClient({
		baseUrl: emulator.baseUrl,
		asyncUrl: emulator.asyncUrl,
		transport: createAxiosTransport({ apiKey }),
		secrets: [apiKey, SECRET_KEY],
		cacheIdentity: `bad-inputs-${apiKey}`,
		...rest,
	});
}

/** Runs `work`, expecting it to fail within the time bound; returns the error. */
async function refused(work: Promise<unknown>): Promise<RenderServiceError> {
	const error = await bounded(
		work.then(
			() => undefined,
			(e: unknown) => e,
		),
		15_000,
		'the bad input',
	);
	expect(error).toBeInstanceOf(RenderServiceError);
	expect(deepText(error)).not.toContain(SECRET_KEY);
	return error as RenderServiceError;
}

/** Submitting `bad` is refused with `message`, and no job reaches the service. */
async function refusedBeforeSubmission(bad: GenerationRequest, message: string, field: string) {
	const error = await refused(client().generate(bad));
	expect(error.message).toBe(message);
	expect(error.code).toBe('validation');
	expect((error as { field?: string }).field).toBe(field);
	expect(error.hint).toBeTruthy();
	expect(emulator.counters().jobsCreated).toBe(0);
	expect(emulator.counters().requests.queue).toBe(0);
	return error;
}

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
	const started = await startServer(handler);
	servers.push(started);
	return started;
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
	const s = await startServer(() => undefined);
	await s.close();
	await new Promise<void>((resolve) => {
		const probe = createConnection(s.port, '127.0.0.1');
		probe.on('error', () => resolve());
		probe.on('connect', () => {
			probe.destroy();
			resolve();
		});
	});
	return s.port;
}

describe('bad inputs refused before a job is submitted', () => {
	it('empty prompt', async () => {
		await refusedBeforeSubmission(request({ prompt: '   ' }), 'The prompt is empty.', 'prompt');
	});

	it('unknown family', async () => {
		await refusedBeforeSubmission(
			request({ family: 'nope' }),
			'Model family "nope" is not offered by the Render Service.',
			'family',
		);
	});

	it('unknown model', async () => {
		await refusedBeforeSubmission(
			request({ model: 'nope' }),
			'Model "nope" does not exist in family flux.',
			'model',
		);
	});

	it('format not offered', async () => {
		await refusedBeforeSubmission(
			request({ family: 'sdxl', model: 'turbo', format: 'portrait' }),
			'Model sdxl/turbo does not offer format "portrait".',
			'format',
		);
	});

	it('task not offered', async () => {
		await refusedBeforeSubmission(
			request({ task: 'i2i', image: { data: Buffer.from('x'), mimeType: 'image/png' } }),
			'Model flux/schnell cannot do task "i2i".',
			'task',
		);
	});

	it('backend not offered', async () => {
		await refusedBeforeSubmission(
			request({ backend: 'tensorrt' }),
			'Model flux/schnell does not run on backend "tensorrt".',
			'backend',
		);
	});

	it('steps on a fixed-steps model', async () => {
		await refusedBeforeSubmission(
			request({ steps: 20 }),
			'Model flux/schnell has a fixed 4 steps; remove Steps.',
			'steps',
		);
	});

	it('guidance out of range', async () => {
		await refusedBeforeSubmission(
			request({ model: 'dev', guidance: 50 }),
			'Guidance 50 is outside what model flux/dev accepts (1 to 10).',
			'guidance',
		);
	});

	it('i2i without an image', async () => {
		await refusedBeforeSubmission(
			request({ model: 'dev', task: 'i2i' }),
			'Task i2i (image to image) needs an input image, and none was given.',
			'image',
		);
	});

	it('a coming_soon model', async () => {
		await refusedBeforeSubmission(
			request({ family: 'sd3', model: 'medium' }),
			'Model sd3/medium is announced but not available yet.',
			'model',
		);
	});
});

describe('bad credentials and addresses', () => {
	it.each([
		['a wrong API key', 'rs_live_WRONG_0000', 'The API key is not valid.'],
		[
			'a malformed API key (spaces)',
			'not a key',
			'Missing API key: send "Authorization: Bearer <API key>".',
		],
	])('%s', async (_name, apiKey, said) => {
		const error = await refused(client({ apiKey }).generate(request()));
		expect(error.message).toBe(
			`the Render Service refused the API key while listing models (HTTP 401). The service said: "${said}".`,
		);
		expect(error.hint).toBe('Check the API key in the Render Service credential.');
		expect(emulator.counters()).toMatchObject({ jobsCreated: 0, requests: { queue: 0 } });
	});

	it('a wrong base URL: a server that is not the service (HTML)', async () => {
		const html = await server((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/html' });
			res.end('<!doctype html><html><body>Welcome to nginx!</body></html>');
		});
		const error = await refused(
			client({ baseUrl: html.url, asyncUrl: html.url }).generate(request()),
		);
		expect(error.message).toBe('The model list from the Render Service could not be read.');
		expect(error.hint).toMatch(/Check the Base URL/);
		expect(html.requests.map((r) => r.method)).not.toContain('POST');
	});

	it('a wrong base URL: nothing listens there', async () => {
		const port = await closedPort();
		const url = `http://127.0.0.1:${port}`;
		const error = await refused(client({ baseUrl: url, asyncUrl: url }).generate(request()));
		expect(error.code).toBe('network');
		expect(error.message).toBe(
			'could not reach the Render Service while listing models (connection refused (ECONNREFUSED)).',
		);
		expect(error.hint).toMatch(/Check the Base URL \/ Async URL/);
	});

	it('a wrong base URL: https:// to a plain-HTTP port (TLS error)', async () => {
		const url = emulator.baseUrl.replace('http://', 'https://');
		const error = await refused(client({ baseUrl: url }).generate(request()));
		expect(error.code).toBe('network');
		expect(error.message).toBe(
			'could not reach the Render Service while listing models (the TLS (https) connection failed (EPROTO)).',
		);
		expect(error.hint).toMatch(/a server without TLS needs http:\/\//);
		expect(emulator.counters().jobsCreated).toBe(0);
	});
});

describe('bad job IDs and unreadable replies', () => {
	it('a job ID that does not exist', async () => {
		const error = await refused(client().wait('no-such-job', { mode: 'auto', timeoutMs: 5_000 }));
		expect(error.code).toBe('not_found');
		expect(error.message).toBe(
			'Job no-such-job: the Render Service does not know this job (HTTP 404). The service said: "No job with ID "no-such-job".".',
		);
		expect(error.hint).toMatch(/job ID may be wrong/);
	});

	it('a non-JSON reply to the job check keeps the job ID, and the job is not lost', async () => {
		const job = await client().submit(request({ prompt: 'kept safe' }));
		const broken = await server((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/plain' });
			res.end('OK');
		});
		const error = await refused(
			client({ asyncUrl: broken.url }).wait(job.jobId, { mode: 'poll', timeoutMs: 5_000 }),
		);
		expect(error.message).toBe(
			`Job ${job.jobId}: the service answered with something that is not a job record.`,
		);
		// The same job, asked at the right address, completes and delivers its file.
		const outcome = await client().wait(job.jobId, { mode: 'poll', timeoutMs: 5_000 });
		expect(outcome.kind).toBe('complete');
		expect(emulator.counters().jobsCreated).toBe(1);
	});

	it('an oversized reply to the model list is refused, not read to the end', async () => {
		let closed = false;
		const chunk = Buffer.alloc(64 * 1024, 0x20);
		const huge = await server((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"models":[');
			const pump = (): void => {
				while (!res.destroyed && res.write(chunk));
				if (!res.destroyed) res.once('drain', pump);
			};
			req.on('close', () => (closed = true));
			res.on('close', () => (closed = true));
			pump();
		});
		const error = await refused(client({ baseUrl: huge.url }).catalogue({ fresh: true }));
		expect(error.code).toBe('bad_response');
		expect(error.message).toBe(
			'the reply of the Render Service while listing models was too large (over 8388608 bytes), so it was not read.',
		);
		await until(() => closed, 5_000, 'the connection to close');
		expect(emulator.counters().jobsCreated).toBe(0);
	});

	it('a small model list is still read normally from any server', async () => {
		const plain = await server((_req, res) => sendJson(res, 200, ONE_MODEL));
		const catalogue = await client({ baseUrl: plain.url }).catalogue({ fresh: true });
		expect(catalogue.models.map((m) => `${m.family}/${m.model}`)).toEqual(['flux/schnell']);
	});
});
