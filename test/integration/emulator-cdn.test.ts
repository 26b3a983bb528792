/**
 * The emulator's CDN origin: real files with Content-Type, Content-Length, ETag and byte
 * ranges; signed URLs that expire or can be forged (403); and the refusal (400, counted) of
 * any request that carries an Authorization header.
 */
import type { RunningEmulator } from '../../emulator';
import {
	auth,
	call,
	imageJob,
	resultUrlOf,
	sleep,
	startEmulator,
	submit,
} from './emulator-helpers';

describe('emulator: CDN', () => {
	let emu: RunningEmulator;
	let jobId: string;
	let url: string;
	let expected: Buffer;

	beforeAll(async () => {
		emu = await startEmulator();
		jobId = (await submit(emu)).id;
		url = await resultUrlOf(emu, jobId);
		expected = emu.expectedResult(jobId)?.data as Buffer;
	});
	afterAll(() => emu.close());
	afterEach(() => emu.setFaults({}));

	const download = async (
		target: string,
		headers: Record<string, string> = {},
	): Promise<{ status: number; headers: Headers; data: Buffer }> => {
		const res = await fetch(target, { headers });
		return { status: res.status, headers: res.headers, data: Buffer.from(await res.arrayBuffer()) };
	};

	it('serves the exact result bytes with type, length, ETag and Accept-Ranges', async () => {
		expect(expected.subarray(1, 4).toString()).toBe('PNG');
		const r = await call(url, {}, { openApi: true });
		expect(r.status).toBe(200);
		const res = await download(url);
		expect(res.data.equals(expected)).toBe(true);
		expect(res.headers.get('content-type')).toBe('image/png');
		expect(res.headers.get('content-length')).toBe(String(expected.length));
		expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
		expect(res.headers.get('accept-ranges')).toBe('bytes');
		expect(emu.expectedResult(jobId)?.mimeType).toBe('image/png');
	});

	it('serves byte ranges with 206 and Content-Range, and 416 outside the file', async () => {
		const part = await download(url, { range: 'bytes=10-99' });
		expect(part.status).toBe(206);
		expect(part.headers.get('content-range')).toBe(`bytes 10-99/${expected.length}`);
		expect(part.data.equals(expected.subarray(10, 100))).toBe(true);
		const tail = await download(url, { range: 'bytes=-16' });
		expect(tail.data.equals(expected.subarray(expected.length - 16))).toBe(true);
		const outside = await call(url, { headers: { range: `bytes=${expected.length}-` } });
		expect(outside.status).toBe(416);
		expect(outside.headers.get('content-range')).toBe(`bytes */${expected.length}`);
	});

	it('answers HEAD with the headers only, and If-None-Match with 304', async () => {
		const head = await fetch(url, { method: 'HEAD' });
		expect(head.status).toBe(200);
		expect(head.headers.get('content-length')).toBe(String(expected.length));
		const etag = head.headers.get('etag') as string;
		const again = await fetch(url, { headers: { 'if-none-match': etag } });
		expect(again.status).toBe(304);
	});

	it('refuses (400) and counts every request that carries an Authorization header', async () => {
		emu.resetCounters();
		const r = await call(url, { headers: { authorization: `Bearer ${emu.apiKey}` } });
		expect(r.status).toBe(400);
		expect((r.body as { error: { code: string } }).error.code).toBe('authorization_not_allowed');
		expect(r.text).not.toContain(emu.apiKey);
		await call(
			`${emu.cdnUrl}/anything`,
			{ headers: { authorization: 'Basic eDp5' } },
			{ openApi: false },
		);
		expect(emu.counters().cdnAuthorizationHeaders).toBe(2);
		expect(emu.counters().requests.cdn).toBe(2);
	});

	it('answers 403 to a forged signature, a tampered expiry, or another file name', async () => {
		const forged = new URL(url);
		const sig = forged.searchParams.get('sig') as string;
		forged.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
		const tampered = new URL(url);
		tampered.searchParams.set('exp', String(Number(tampered.searchParams.get('exp')) + 60_000));
		const otherFile = url.replace(`${jobId}.png`, `${jobId}.gif`);
		const noSig = url.split('?')[0] as string;
		for (const target of [forged.toString(), tampered.toString(), otherFile, noSig]) {
			const r = await call(target);
			expect(r.status).toBe(403);
			expect((r.body as { error: { code: string } }).error.code).toBe('invalid_signature');
		}
	});

	it('answers 403 url_expired after expireCdnUrls, and the job then hands out a fresh URL', async () => {
		const before = await resultUrlOf(emu, jobId);
		emu.expireCdnUrls();
		const r = await call(before);
		expect(r.status).toBe(403);
		expect((r.body as { error: { code: string } }).error.code).toBe('url_expired');
		const fresh = await resultUrlOf(emu, jobId);
		expect((await download(fresh)).data.equals(expected)).toBe(true);
	});

	it('lets signed URLs expire after cdnUrlTtlMs', async () => {
		const shortLived = await startEmulator({ cdnUrlTtlMs: 30 });
		try {
			const job = await submit(shortLived);
			const target = await resultUrlOf(shortLived, job.id);
			await sleep(60);
			const r = await call(target);
			expect(r.status).toBe(403);
			expect((r.body as { error: { code: string } }).error.code).toBe('url_expired');
		} finally {
			await shortLived.close();
		}
	});

	it('cdnTruncateAfterBytes drops the first download once; a Range resume gets the rest', async () => {
		const job = await submit(emu, { ...imageJob, prompt: 'truncate me' });
		const target = await resultUrlOf(emu, job.id);
		const whole = emu.expectedResult(job.id)?.data as Buffer;
		emu.setFaults({ cdnTruncateAfterBytes: 1000 });
		const first = await fetch(target);
		expect(first.headers.get('content-length')).toBe(String(whole.length));
		await expect(first.arrayBuffer()).rejects.toThrow();
		const rest = await download(target, { range: 'bytes=1000-' });
		expect(rest.status).toBe(206);
		expect(Buffer.concat([whole.subarray(0, 1000), rest.data]).equals(whole)).toBe(true);
		// Once per job: a later full download is whole.
		expect((await download(target)).data.equals(whole)).toBe(true);
	});

	it('cdnSlowBytesPerSecond still delivers the whole file', async () => {
		emu.setFaults({ cdnSlowBytesPerSecond: 400_000 });
		const res = await download(await resultUrlOf(emu, jobId));
		expect(res.status).toBe(200);
		expect(res.data.equals(expected)).toBe(true);
	});

	it('serves video results as animated GIFs', async () => {
		const job = await submit(emu, {
			...imageJob,
			modality: 'video',
			family: 'motion',
			model: 'clip-v1',
		});
		const target = await resultUrlOf(emu, job.id);
		expect(target).toContain(`${job.id}.gif?`);
		const res = await download(target);
		expect(res.headers.get('content-type')).toBe('image/gif');
		expect(res.data.subarray(0, 6).toString()).toBe('GIF89a');
	});

	it('answers 404 for unknown paths and 405 for other methods', async () => {
		expect((await call(`${emu.cdnUrl}/results`)).status).toBe(404);
		const post = await call(url, { method: 'POST' });
		expect(post.status).toBe(405);
		expect(post.headers.get('allow')).toBe('GET, HEAD');
	});

	it('pads results to the large-result size', async () => {
		const big = await startEmulator({ resultPadBytes: 2 * 1024 * 1024 });
		try {
			const job = await submit(big);
			const res = await download(await resultUrlOf(big, job.id));
			expect(res.data.length).toBe(2 * 1024 * 1024);
			expect(res.data.equals(big.expectedResult(job.id)?.data as Buffer)).toBe(true);
		} finally {
			await big.close();
		}
	});

	it('the 303 of GET /jobs/{id} leads to this CDN, on another origin', async () => {
		const r = await call(`${emu.asyncUrl}/jobs/${jobId}`, { headers: auth(emu) });
		expect(r.status).toBe(303);
		const location = new URL(r.headers.get('location') as string);
		expect(location.origin).toBe(emu.cdnUrl);
		expect(location.origin).not.toBe(new URL(emu.asyncUrl).origin);
	});
});
