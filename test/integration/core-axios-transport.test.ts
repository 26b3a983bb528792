import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import { TransportError, type SseItem } from '../../core/transport';

const KEY = 'sk_test_secret_key_123456';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes: Record<string, Handler> = {
	'/echo': (req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(
			JSON.stringify({
				auth: req.headers.authorization ?? null,
				lastEventId: req.headers['last-event-id'] ?? null,
			}),
		);
	},
	'/redirect': (_req, res) => {
		res.writeHead(303, { location: 'http://example.invalid/file.png' });
		res.end();
	},
	'/sse': (req, res) => {
		res.writeHead(200, { 'content-type': 'text/event-stream' });
		const from = Number(req.headers['last-event-id'] ?? 0);
		res.write(': hello\n\n');
		for (let i = from + 1; i <= from + 2; i++)
			res.write(`id: ${i}\nevent: progress\ndata: {"progress":${i / 10}}\n\n`);
		res.write(`id: ${from + 3}\nevent: error\ndata: {"x":1}\n\n`);
		res.end();
	},
	'/sse-refused': (_req, res) => {
		res.writeHead(404, { 'content-type': 'application/json' });
		res.end('{}');
	},
	'/hang': () => {
		// Never answers: the header timeout must end the request.
	},
	'/sse-json': (_req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end('{}');
	},
};

let server: Server;
let base: string;
const seenAuth: (string | undefined)[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		seenAuth.push(req.headers.authorization);
		const handler = routes[req.url ?? ''];
		if (handler) handler(req, res);
		else {
			res.writeHead(404);
			res.end();
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

const transport = createAxiosTransport({ apiKey: KEY });

async function collect(items: AsyncIterable<SseItem>): Promise<SseItem[]> {
	const out: SseItem[] = [];
	for await (const item of items) out.push(item);
	return out;
}

describe('axios transport', () => {
	it('adds the bearer key only when asked', async () => {
		const withAuth = await transport.request({
			method: 'GET',
			url: `${base}/echo`,
			auth: true,
			responseType: 'text',
		});
		expect(JSON.parse(withAuth.body).auth).toBe(`Bearer ${KEY}`);
		const without = await transport.request({
			method: 'GET',
			url: `${base}/echo`,
			auth: false,
			headers: { authorization: 'Bearer smuggled' },
			responseType: 'text',
		});
		expect(JSON.parse(without.body).auth).toBeNull();
	});

	it('returns a redirect instead of following it', async () => {
		const res = await transport.request({
			method: 'GET',
			url: `${base}/redirect`,
			auth: true,
			responseType: 'text',
		});
		expect(res.status).toBe(303);
		expect(res.headers.location).toBe('http://example.invalid/file.png');
	});

	it('reports a refused connection as not sent, without the key in the message', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const error = await transport
			.request({
				method: 'GET',
				url: `http://127.0.0.1:${port}/x`,
				auth: true,
				responseType: 'text',
			})
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TransportError);
		expect((error as TransportError).sent).toBe(false);
		expect(JSON.stringify(error) + String(error)).not.toContain(KEY);
	});

	it('ends a request without response headers at its timeout, as sent', async () => {
		const error = await transport
			.request({
				method: 'GET',
				url: `${base}/hang`,
				auth: true,
				responseType: 'text',
				timeoutMs: 150,
			})
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TransportError);
		expect(error).toMatchObject({ code: 'timeout', sent: true });
	});

	it('opens one SSE connection: events with ids, heartbeats, server "error" events, then ends', async () => {
		const controller = new AbortController();
		const conn = await transport.openEventStream({
			url: `${base}/sse`,
			lastEventId: '5',
			signal: controller.signal,
		});
		expect(conn.status).toBe(200);
		const items = await collect(conn.items);
		const events = items.flatMap((i) => (i.type === 'event' ? [i.message] : []));
		expect(events.map((e) => [e.event, e.id])).toEqual([
			['progress', '6'],
			['progress', '7'],
			['error', '8'],
		]);
		expect(items.some((i) => i.type === 'heartbeat')).toBe(true);
		expect(seenAuth).toContain(`Bearer ${KEY}`);
		conn.close();
	});

	it('surfaces a refused stream with its status and no items', async () => {
		const controller = new AbortController();
		const refused = await transport.openEventStream({
			url: `${base}/sse-refused`,
			signal: controller.signal,
		});
		expect(refused.status).toBe(404);
		expect(await collect(refused.items)).toEqual([]);
		const wrongType = await transport.openEventStream({
			url: `${base}/sse-json`,
			signal: controller.signal,
		});
		expect(wrongType.status).toBe(200);
		expect(wrongType.headers['content-type']).toContain('application/json');
		expect(await collect(wrongType.items)).toEqual([]);
	});
});
