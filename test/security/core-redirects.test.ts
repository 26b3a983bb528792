/**
 * Where the API key may go when a result address redirects, through the client core on its
 * axios transport (the Node-RED path), with local servers that record every header: the
 * API's own origin keeps the key, any other origin gets none, non-http(s) addresses are
 * refused, and the optional CDN host allow-list stops a compromised service from steering
 * downloads into the user's network.
 */
import { createRenderClient } from '../../core/client';
import { RenderServiceError } from '../../core/errors';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import type { RenderClientOptions } from '../../core/api';
import { deepText, SECRET_KEY } from '../helpers/fault-capture';
import {
	FILE_BYTES,
	fileHandler,
	serviceHandler,
	startServer,
	type Handler,
	type TestServer,
} from '../helpers/fault-servers';
import { request } from '../integration/core-harness';

jest.setTimeout(20_000);

const servers: TestServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: Handler, host?: string): Promise<TestServer> {
	const started = await startServer(handler, host);
	servers.push(started);
	return started;
}

/** A stand-in service whose job 303s to `location`, serving files at its own /files too. */
async function service(location: () => string): Promise<TestServer> {
	return server(serviceHandler(location, fileHandler()));
}

function clientFor(api: TestServer, options: Partial<RenderClientOptions> = {}) {
	return createRenderClient({
		baseUrl: api.url,
		asyncUrl: api.url,
		transport: createAxiosTransport({ apiKey: SECRET_KEY }),
		secrets: [SECRET_KEY],
		cacheIdentity: `security-${api.url}`,
		...options,
	});
}

const REQUEST = request({ prompt: 'a locked door' });

/** submit + wait (polling) + download, returning the bytes or the error. */
async function fetchResult(client: ReturnType<typeof clientFor>): Promise<Buffer> {
	const outcome = await client.generate(REQUEST, { mode: 'poll', timeoutMs: 5_000 });
	if (outcome.kind !== 'complete') throw new Error('timed out');
	const chunks: Buffer[] = [];
	for await (const chunk of outcome.file.stream) chunks.push(chunk);
	return Buffer.concat(chunks);
}

async function failure(work: Promise<unknown>): Promise<RenderServiceError> {
	const error = await work.then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(RenderServiceError);
	expect(deepText(error)).not.toContain(SECRET_KEY);
	return error as RenderServiceError;
}

const bearer = `Bearer ${SECRET_KEY}`;

describe('redirects and the API key', () => {
	it('a result address on the API origin keeps the key', async () => {
		const api: TestServer = await service(() => `${api.url}/files/job-1.png`);
		expect((await fetchResult(clientFor(api))).equals(FILE_BYTES)).toBe(true);
		const download = api.requests.find((r) => r.path === '/files/job-1.png');
		expect(download?.headers.authorization).toBe(bearer);
	});

	it('a result address on any other origin gets no key (other port, other host name)', async () => {
		for (const host of ['127.0.0.1', 'localhost']) {
			const cdn = await server(fileHandler(), host === 'localhost' ? '127.0.0.1' : host);
			const foreign = host === 'localhost' ? cdn.url.replace('127.0.0.1', 'localhost') : cdn.url;
			const api = await service(() => `${foreign}/files/job-1.png`);
			expect((await fetchResult(clientFor(api))).equals(FILE_BYTES)).toBe(true);
			expect(cdn.requests).toHaveLength(1);
			expect(cdn.requests[0]?.headers.authorization).toBeUndefined();
		}
	});

	it('a redirect chain through foreign origins never carries the key; back on the API it does', async () => {
		const third = await server(fileHandler());
		let api: TestServer | undefined;
		const hop = await server((_req, res, url) => {
			const target =
				url.pathname === '/to-third' ? `${third.url}/files/x.png` : `${api!.url}/files/job-1.png`;
			res.writeHead(302, { location: target });
			res.end();
		});
		api = await service(() => `${hop.url}/to-third`);
		expect((await fetchResult(clientFor(api))).equals(FILE_BYTES)).toBe(true);
		expect(hop.requests[0]?.headers.authorization).toBeUndefined();
		expect(third.requests[0]?.headers.authorization).toBeUndefined();

		const back = await service(() => `${hop.url}/to-api`);
		api = back;
		expect((await fetchResult(clientFor(back))).equals(FILE_BYTES)).toBe(true);
		expect(hop.requests.at(-1)?.headers.authorization).toBeUndefined();
		const onApi = back.requests.find((r) => r.path === '/files/job-1.png');
		expect(onApi?.headers.authorization).toBe(bearer);
	});

	it.each([
		'file:///etc/passwd',
		'ftp://files.example/result.png',
		'gopher://x/1',
		'data:image/png;base64,AAAA',
	])('refuses a result address with a non-http(s) scheme: %s', async (location) => {
		const api = await service(() => location);
		const error = await failure(fetchResult(clientFor(api)));
		const scheme = location.slice(0, location.indexOf(':') + 1);
		expect(error.message).toBe(
			`Job job-1: the result address uses "${scheme}", which is not allowed.`,
		);
		expect(error.hint).toMatch(/only http and https/i);
	});

	it('refuses a foreign redirect to a non-http(s) scheme without following it', async () => {
		const hop = await server((_req, res) => {
			res.writeHead(302, { location: 'file:///etc/shadow' });
			res.end();
		});
		const api = await service(() => `${hop.url}/x`);
		const error = await failure(fetchResult(clientFor(api)));
		expect(error.message).toMatch(/uses "file:", which is not allowed/);
	});
});

describe('CDN host allow-list (off by default)', () => {
	it('by default any CDN host is accepted', async () => {
		const cdn = await server(fileHandler());
		const api = await service(() => `${cdn.url.replace('127.0.0.1', 'localhost')}/f.png`);
		expect((await fetchResult(clientFor(api))).equals(FILE_BYTES)).toBe(true);
	});

	it('refuses a host outside the list before any request reaches it', async () => {
		const cdn = await server(fileHandler());
		const api = await service(() => `${cdn.url.replace('127.0.0.1', 'localhost')}/f.png`);
		const client = clientFor(api, { allowedCdnHosts: ['cdn.render-service.example'] });
		const error = await failure(fetchResult(client));
		expect(error.message).toBe(
			'Job job-1: the result is hosted on localhost, which is not in the allowed CDN hosts.',
		);
		expect(cdn.requests).toHaveLength(0);
	});

	it('accepts listed hosts, and refuses a redirect from a listed host into another one', async () => {
		const internal = await server(fileHandler());
		const cdn = await server((_req, res) => {
			// A compromised CDN steering the download to an address inside the user's network.
			res.writeHead(302, { location: `${internal.url}/admin/secrets` });
			res.end();
		});
		const good = await server(fileHandler());
		const asLocalhost = (s: TestServer) => s.url.replace('127.0.0.1', 'localhost');
		const okApi = await service(() => `${asLocalhost(good)}/f.png`);
		const okClient = clientFor(okApi, { allowedCdnHosts: ['cdn.example.com,  LocalHost '] });
		expect((await fetchResult(okClient)).equals(FILE_BYTES)).toBe(true);

		const badApi = await service(() => `${asLocalhost(cdn)}/f.png`);
		const error = await failure(fetchResult(clientFor(badApi, { allowedCdnHosts: ['localhost'] })));
		expect(error.message).toMatch(/hosted on 127\.0\.0\.1, which is not in the allowed CDN hosts/);
		expect(internal.requests).toHaveLength(0);
	});
});
