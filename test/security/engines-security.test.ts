/**
 * The security options and rules as users of each engine meet them: the CDN host allow-list
 * and the download size cap set in the n8n credential and the Node-RED config node; the
 * redirect origin rule through n8n's own HTTP helpers; and a service that echoes the key back
 * in an error, which no message, status or log may repeat.
 */
import { createEmulator, type RunningEmulator } from '../../emulator';
import { captureOutput, deepText, SECRET_KEY, type Capture } from '../helpers/fault-capture';
import {
	FILE_BYTES,
	fileHandler,
	sendJson,
	serviceHandler,
	startServer,
	type Handler,
	type TestServer,
} from '../helpers/fault-servers';
import { chain, node } from '../helpers/n8n-engine';
import {
	binaryBytes,
	createRenderEngine,
	generateParams,
	renderNode,
	TYPES,
} from '../helpers/n8n-render';
import {
	catchNodes,
	generateNode,
	helper,
	load,
	nextMessage,
	type Flow,
	type Msg,
} from '../helpers/node-red-harness';
import { tempN8nUserFolder } from '../helpers/n8n-user-folder';

jest.setTimeout(30_000);

const PAD_BYTES = 400_000;
let emulator: RunningEmulator;
let capture: Capture;
const servers: TestServer[] = [];
tempN8nUserFolder('security-', 'all');

beforeAll(async () => {
	emulator = await createEmulator({
		port: 0,
		apiKeys: [SECRET_KEY],
		queueMs: 20,
		runMs: 60,
		retryAfterSeconds: 0,
		resultPadBytes: PAD_BYTES,
	});
});
beforeEach(() => {
	capture = captureOutput();
	emulator.resetCounters();
});
afterEach(async () => {
	capture.restore();
	await helper.unload();
	await Promise.all(servers.splice(0).map((s) => s.close()));
	// Whatever a scenario did, the CDN never saw the key.
	expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
});
afterAll(async () => {
	await emulator.close();
});

async function server(...args: Parameters<typeof startServer>): Promise<TestServer> {
	const started = await startServer(...args);
	servers.push(started);
	return started;
}

interface Endpoint {
	baseUrl: string;
	asyncUrl: string;
}

const EMULATOR = (): Endpoint => ({ baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl });

describe('n8n: credential options and n8n’s HTTP helpers', () => {
	async function generate(endpoint: Endpoint, extra: Record<string, unknown> = {}) {
		const engine = createRenderEngine(emulator);
		engine.setCredentials('renderServiceApi', { apiKey: SECRET_KEY, ...endpoint, ...extra });
		const result = await engine.run({
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode('Generate', TYPES.generateMedia, generateParams({ waitStrategy: 'poll' })),
			],
			connections: chain('Start', 'Generate'),
		});
		capture.add(result.run);
		expect(capture.leaks()).toBe(0);
		return result;
	}

	it('the allow-list (Allowed CDN Hosts) refuses the emulator CDN before any request', async () => {
		const result = await generate(EMULATOR(), { allowedCdnHosts: 'cdn.render-service.example' });
		const error = result.nodeError('Generate');
		expect(error?.message).toMatch(
			/^Job [\w-]+: the result is hosted on 127\.0\.0\.1, which is not in the allowed CDN hosts\.$/,
		);
		expect(String(error?.description)).toMatch(/allowed CDN hosts/);
		expect(emulator.counters()).toMatchObject({ jobsCreated: 1, requests: { cdn: 0 } });
	});

	it('a listed host is accepted', async () => {
		const result = await generate(EMULATOR(), { allowedCdnHosts: 'cdn.example, 127.0.0.1' });
		const [item] = result.output('Generate');
		const expected = emulator.expectedResult(String(item?.json.jobId));
		expect(binaryBytes(item!).equals(expected!.data)).toBe(true);
	});

	it('Max Download Size (MB) refuses a larger result', async () => {
		const result = await generate(EMULATOR(), { maxDownloadMb: 0.1 });
		expect(result.nodeError('Generate')?.message).toMatch(
			/^Job [\w-]+: the result is \d+ bytes, more than the 104857-byte limit\.$/,
		);
		expect(emulator.counters().jobsCreated).toBe(1);
	});

	it('a result on the API origin gets the key; one on another origin does not', async () => {
		const cdn = await server(fileHandler());
		const foreign = await server(serviceHandler(() => `${cdn.url}/f.png`));
		const own: TestServer = await server(
			serviceHandler(() => `${own.url}/files/f.png`, fileHandler()),
		);
		for (const api of [foreign, own]) {
			const result = await generate({ baseUrl: api.url, asyncUrl: api.url });
			expect(binaryBytes(result.output('Generate')[0]!).equals(FILE_BYTES)).toBe(true);
		}
		expect(cdn.requests[0]?.headers.authorization).toBeUndefined();
		const onApi = own.requests.find((r) => r.path === '/files/f.png');
		expect(onApi?.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
	});

	it('a result address with a non-http(s) scheme is refused', async () => {
		const api = await server(serviceHandler(() => 'file:///etc/passwd'));
		const result = await generate({ baseUrl: api.url, asyncUrl: api.url });
		expect(result.nodeError('Generate')?.message).toBe(
			'Job job-1: the result address uses "file:", which is not allowed.',
		);
	});

	it('a service echoing the key in an error does not make n8n show it', async () => {
		const api = await server(echoingService());
		const result = await generate({ baseUrl: api.url, asyncUrl: api.url });
		const error = result.nodeError('Generate');
		expect(error?.message).toContain('[redacted]');
		expect(deepText(result.run)).not.toContain(SECRET_KEY);
	});
});

/** A broken service that repeats the request's Authorization header in its error text. */
function echoingService(): Handler {
	const normal = serviceHandler(() => 'unused');
	return (req, res, url) => {
		if (url.pathname !== '/queue') return normal(req, res, url);
		req.resume();
		sendJson(res, 400, {
			error: { message: `Bad request from ${req.headers.authorization ?? 'nobody'}` },
		});
	};
}

describe('Node-RED: config node options', () => {
	function flow(endpoint: Endpoint, extra: Record<string, unknown> = {}): Flow {
		return [
			{ id: 'cfg', type: 'render-service-config', name: 'sec', ...endpoint, ...extra },
			generateNode({ waitMode: 'poll' }),
			{ id: 'out', type: 'helper' },
			...catchNodes(),
		];
	}

	async function run(endpoint: Endpoint, extra: Record<string, unknown> = {}): Promise<Msg> {
		await load(flow(endpoint, extra), SECRET_KEY);
		for (const id of ['gen']) {
			for (const call of ['status', 'warn', 'error', 'log']) {
				helper.getNode(id).on(`call:${call}`, (c: { args: unknown[] }) => capture.add(c.args));
			}
		}
		const caught = nextMessage('caught');
		const out = nextMessage('out');
		helper.getNode('gen').receive({ payload: 'a guarded picture' });
		const msg = await Promise.race([caught, out]);
		capture.add(msg, (helper as unknown as { log(): { args: unknown[] } }).log().args);
		expect(capture.leaks()).toBe(0);
		return msg;
	}

	it('CDN hosts refuses the emulator CDN before any request', async () => {
		const msg = await run(EMULATOR(), { allowedCdnHosts: 'cdn.render-service.example' });
		expect((msg.error as { message: string }).message).toMatch(
			/the result is hosted on 127\.0\.0\.1, which is not in the allowed CDN hosts/,
		);
		expect(emulator.counters()).toMatchObject({ jobsCreated: 1, requests: { cdn: 0 } });
	});

	it('a listed host is accepted', async () => {
		const msg = await run(EMULATOR(), { allowedCdnHosts: '127.0.0.1' });
		const expected = emulator.expectedResult(String(msg.jobId));
		expect((msg.payload as Buffer).equals(expected!.data)).toBe(true);
	});

	it('Max MB refuses a larger result', async () => {
		const msg = await run(EMULATOR(), { maxDownloadMb: '0.1' });
		expect((msg.error as { message: string }).message).toMatch(
			/the result is \d+ bytes, more than the 104857-byte limit/,
		);
	});

	it('a service echoing the key in an error does not make Node-RED show it', async () => {
		const api = await server(echoingService());
		const msg = await run({ baseUrl: api.url, asyncUrl: api.url });
		expect((msg.error as { message: string }).message).toContain('[redacted]');
	});
});
