import { Readable } from 'node:stream';
import { CdnError } from '../../core/errors';
import { fileNameFor } from '../../core/download';
import { fakeClient, fakeTime, fakeTransport, ASYNC } from './core-fakes';

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const c of stream) chunks.push(c);
	return Buffer.concat(chunks);
}

describe('download', () => {
	it('never authenticates to another origin; follows redirects by hand', async () => {
		const transport = fakeTransport();
		transport.on('GET /jobs/j1/result', {
			status: 302,
			headers: { location: 'https://cdn.render.test/j1.png' },
		});
		transport.on('GET /j1.png', {
			status: 200,
			headers: { 'content-type': 'image/png', 'content-length': '4' },
			body: 'PNG!',
		});
		const file = await fakeClient(transport, fakeTime()).downloadToBuffer(
			'j1',
			`${ASYNC}/jobs/j1/result`,
		);
		expect(file.data.toString()).toBe('PNG!');
		expect(file).toMatchObject({ mimeType: 'image/png', size: 4, fileName: 'j1.png' });
		expect(transport.requests.every((r) => r.headers?.['accept-encoding'] === 'identity')).toBe(
			true,
		);
		expect(transport.requests.map((r) => [new URL(r.url).host, r.auth])).toEqual([
			['queue.render.test', true],
			['cdn.render.test', false],
		]);
	});

	it('refuses non-http schemes', async () => {
		const transport = fakeTransport();
		const error = await fakeClient(transport, fakeTime())
			.download('j1', 'file:///etc/passwd')
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(CdnError);
		expect((error as CdnError).jobId).toBe('j1');
		expect(transport.requests).toHaveLength(0);
	});

	it('fails when the body stays shorter than Content-Length after resuming', async () => {
		const transport = fakeTransport();
		transport.on('GET /j1.png', () => ({
			status: 200,
			headers: { 'content-type': 'image/png', 'content-length': '10' },
			body: 'abc',
		}));
		const file = await fakeClient(transport, fakeTime()).download(
			'j1',
			'https://cdn.render.test/j1.png',
		);
		const error = await readAll(file.stream).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(CdnError);
		// The first request plus five resumes, each asking from the bytes already received.
		expect(transport.requests.map((r) => r.headers?.range)).toEqual([
			undefined,
			...Array(5).fill('bytes=3-'),
		]);
	});

	it('skips already-delivered bytes when the CDN ignores Range', async () => {
		const transport = fakeTransport();
		let calls = 0;
		transport.on('GET /j1.png', () => {
			calls++;
			return {
				status: 200,
				headers: { 'content-type': 'image/png', 'content-length': '6' },
				body: 'abcdef',
			};
		});
		// First answer breaks after 3 bytes.
		const real = transport.request.bind(transport);
		transport.request = (async (req: Parameters<typeof real>[0]) => {
			const res = await real(req as never);
			if (calls === 1) {
				const body = new Readable({ read() {} });
				body.push(Buffer.from('abc'));
				setImmediate(() => body.destroy(new Error('reset')));
				return { ...res, body };
			}
			return res;
		}) as typeof transport.request;
		const file = await fakeClient(transport, fakeTime()).downloadToBuffer(
			'j1',
			'https://cdn.render.test/j1.png',
		);
		expect(file.data.toString()).toBe('abcdef');
	});

	it('names files from the job ID and MIME type', () => {
		expect(fileNameFor('abc', 'image/jpeg')).toBe('abc.jpg');
		expect(fileNameFor('a/b', 'video/mp4')).toBe('a_b.mp4');
		expect(fileNameFor('x', 'application/octet-stream')).toBe('x.bin');
	});
});
