import { AbortedError, CdnError } from '../../core/errors';
import type { RunningEmulator } from '../../emulator';
import { makeClient, readAll, request, startEmulator } from './core-harness';

let emulator: RunningEmulator;

beforeAll(async () => {
	emulator = await startEmulator();
});

afterEach(() => {
	expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
	emulator.setFaults({});
	emulator.resetCounters();
});

afterAll(async () => {
	await emulator.close();
});

async function completedJob(client: ReturnType<typeof makeClient>) {
	const job = await client.submit(request({ format: '1024' }));
	const outcome = await client.wait(job.jobId);
	if (outcome.kind !== 'complete') throw new Error('expected complete');
	return outcome;
}

describe('download', () => {
	it('resumes a truncated CDN body with a Range request; the file is byte-identical', async () => {
		const client = makeClient(emulator);
		const done = await completedJob(client);
		emulator.setFaults({ cdnTruncateAfterBytes: 100 });
		const file = await client.download(done.jobId, done.resultUrl);
		const data = await readAll(file.stream);
		const expected = emulator.expectedResult(done.jobId)!;
		expect(expected.data.length).toBeGreaterThan(100);
		expect(data.equals(expected.data)).toBe(true);
		expect(file.size).toBe(expected.data.length);
		expect(emulator.counters().requests.cdn).toBe(2);
	});

	it('asks the job for a fresh address once when the signed one has expired', async () => {
		const client = makeClient(emulator);
		const done = await completedJob(client);
		emulator.expireCdnUrls();
		const result = await client.downloadToBuffer(done.jobId, done.resultUrl);
		expect(result.data.equals(emulator.expectedResult(done.jobId)!.data)).toBe(true);
		expect(result.fileName.startsWith(done.jobId)).toBe(true);
	});

	it('fails with a CdnError naming the job when the address stays refused', async () => {
		const client = makeClient(emulator);
		const done = await completedJob(client);
		emulator.expireCdnUrls();
		const error = await client
			.download(done.jobId, done.resultUrl, { refreshUrl: async () => done.resultUrl })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(CdnError);
		expect((error as CdnError).jobId).toBe(done.jobId);
		expect((error as CdnError).status).toBe(403);
	});

	it('stops a slow download promptly when aborted', async () => {
		const client = makeClient(emulator);
		const done = await completedJob(client);
		emulator.setFaults({ cdnSlowBytesPerSecond: 200 });
		const controller = new AbortController();
		const file = await client.download(done.jobId, done.resultUrl, { signal: controller.signal });
		const reading = readAll(file.stream).catch((e: unknown) => e);
		setTimeout(() => controller.abort(), 200);
		const error = await reading;
		expect(error).toBeInstanceOf(AbortedError);
		expect((error as AbortedError).jobId).toBe(done.jobId);
		const cdnRequests = emulator.counters().requests.cdn;
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(emulator.counters().requests.cdn).toBe(cdnRequests);
	});

	it('refuses a result bigger than the configured cap', async () => {
		const client = makeClient(emulator, { maxDownloadBytes: 10 });
		const done = await completedJob(client);
		const error = await client
			.downloadToBuffer(done.jobId, done.resultUrl)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(CdnError);
		expect((error as CdnError).message).toMatch(/limit/);
	});

	it('refuses hosts outside allowedCdnHosts', async () => {
		const client = makeClient(emulator, { allowedCdnHosts: ['cdn.example.com'] });
		const done = await completedJob(client);
		const error = await client.download(done.jobId, done.resultUrl).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(CdnError);
		expect(emulator.counters().requests.cdn).toBe(0);
	});
});
