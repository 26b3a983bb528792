/**
 * The download size cap: a result larger than `maxDownloadBytes` is refused (by its
 * Content-Length before any body is read, or while streaming when the CDN announces nothing),
 * the connection is dropped, and the job is not lost: a client with a higher cap still gets it.
 */
import { createRenderClient } from '../../core/client';
import { CdnError, RenderServiceError } from '../../core/errors';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import { createEmulator, type RunningEmulator } from '../../emulator';
import { deepText, SECRET_KEY } from '../helpers/fault-capture';
import { bounded } from '../helpers/fault-matrix';
import { until } from '../helpers/until';
import { serviceHandler, startServer, type TestServer } from '../helpers/fault-servers';
import { request } from '../integration/core-harness';

jest.setTimeout(20_000);

const REQUEST = request({ prompt: 'a very large picture' });

function client(baseUrl: string, asyncUrl: string, maxDownloadBytes?: number) {
	return createRenderClient({
		baseUrl,
		asyncUrl,
		transport: createAxiosTransport({ apiKey: SECRET_KEY }),
		secrets: [SECRET_KEY],
		cacheIdentity: `cap-${baseUrl}`,
		maxDownloadBytes,
	});
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk);
	return Buffer.concat(chunks);
}

describe('download size cap against the emulator (padded results)', () => {
	let emulator: RunningEmulator;
	beforeAll(async () => {
		emulator = await createEmulator({
			port: 0,
			apiKeys: [SECRET_KEY],
			queueMs: 20,
			runMs: 60,
			resultPadBytes: 400_000,
		});
	});
	afterAll(() => emulator.close());

	it('refuses a result above the cap by its announced size, and keeps the job', async () => {
		const small = client(emulator.baseUrl, emulator.asyncUrl, 100_000);
		const job = await small.submit(REQUEST);
		const outcome = await small.wait(job.jobId, { mode: 'poll', timeoutMs: 5_000 });
		if (outcome.kind !== 'complete') throw new Error('the job did not complete');
		const size = emulator.expectedResult(job.jobId)!.data.length;
		const error = await small.download(job.jobId, outcome.resultUrl).then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(CdnError);
		expect((error as CdnError).message).toBe(
			`Job ${job.jobId}: the result is ${size} bytes, more than the 100000-byte limit.`,
		);
		expect((error as CdnError).hint).toMatch(/maximum download size/i);
		expect(deepText(error)).not.toContain(SECRET_KEY);

		// Nothing lost: with a higher cap the same job's file arrives whole.
		const large = client(emulator.baseUrl, emulator.asyncUrl, 1_000_000);
		const file = await large.downloadToBuffer(job.jobId, outcome.resultUrl);
		expect(file.data.equals(emulator.expectedResult(job.jobId)!.data)).toBe(true);
		expect(emulator.counters()).toMatchObject({ jobsCreated: 1, cdnAuthorizationHeaders: 0 });
	});
});

describe('download size cap against a hostile CDN', () => {
	const servers: TestServer[] = [];
	afterEach(async () => {
		await Promise.all(servers.splice(0).map((s) => s.close()));
	});

	it('stops an endless body without Content-Length at the cap and drops the connection', async () => {
		let closed = false;
		const chunk = Buffer.alloc(64 * 1024, 7);
		const endless = await startServer((req, res) => {
			res.writeHead(200, { 'content-type': 'image/png' });
			const pump = (): void => {
				while (!res.destroyed && res.write(chunk));
				if (!res.destroyed) res.once('drain', pump);
			};
			res.on('close', () => (closed = true));
			req.on('close', () => (closed = true));
			pump();
		});
		servers.push(endless);
		const api = await startServer(serviceHandler(() => `${endless.url}/forever.png`));
		servers.push(api);

		const cap = 1_000_000;
		const outcome = await client(api.url, api.url, cap).generate(REQUEST, {
			mode: 'poll',
			timeoutMs: 5_000,
		});
		if (outcome.kind !== 'complete') throw new Error('the job did not complete');
		const error = await bounded(
			readAll(outcome.file.stream).then(
				() => undefined,
				(e: unknown) => e,
			),
			10_000,
			'the capped download',
		);
		expect(error).toBeInstanceOf(RenderServiceError);
		expect((error as Error).message).toMatch(
			/^Job job-1: the result is \d+ bytes, more than the 1000000-byte limit\.$/,
		);
		await until(() => closed, 5_000, 'the CDN connection to close');
		// What the CDN pushed stays near the cap (socket buffers aside), not unbounded.
		expect(endless.bytesWritten()).toBeLessThan(cap + 16 * 1024 * 1024);
		expect(endless.requests[0]?.headers.authorization).toBeUndefined();
	});

	it('refuses an announced Content-Length above the cap without reading the body', async () => {
		const huge = await startServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(5 * 1024 ** 3) });
			res.write(Buffer.alloc(1024));
		});
		servers.push(huge);
		const api = await startServer(serviceHandler(() => `${huge.url}/big.png`));
		servers.push(api);
		const work = client(api.url, api.url, 10_000_000).generate(REQUEST, {
			mode: 'poll',
			timeoutMs: 5_000,
		});
		const error = await bounded(
			work.then(
				() => undefined,
				(e: unknown) => e,
			),
			10_000,
			'the refused download',
		);
		expect((error as Error).message).toBe(
			`Job job-1: the result is ${5 * 1024 ** 3} bytes, more than the 10000000-byte limit.`,
		);
	});
});
