/**
 * Tiny local HTTP servers for the security and bad-input specs: a stand-in service whose
 * answers a test chooses (redirects anywhere, lies about sizes, HTML instead of JSON), and a
 * "foreign" origin that records whether a request carried the key.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
}

export interface TestServer {
	/** e.g. http://127.0.0.1:PORT */
	url: string;
	port: number;
	requests: SeenRequest[];
	/** Bytes the server managed to write before the client hung up (endless bodies). */
	bytesWritten(): number;
	close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

export async function startServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
	const requests: SeenRequest[] = [];
	const sockets = new Set<Socket>();
	let written = 0;
	const server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://local');
		requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers });
		const write = res.write.bind(res) as (...args: unknown[]) => boolean;
		res.write = ((chunk: unknown, ...rest: unknown[]) => {
			if (chunk && typeof (chunk as Buffer).length === 'number')
				written += (chunk as Buffer).length;
			return write(chunk, ...rest);
		}) as typeof res.write;
		handler(req, res, url);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://${host}:${port}`,
		port,
		requests,
		bytesWritten: () => written,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

/** A catalogue of one model, as the stand-in service lists it. */
export const ONE_MODEL = {
	models: [
		{
			family: 'flux',
			model: 'schnell',
			modality: 'image',
			tasks: ['t2i'],
			backends: ['torch'],
			default_backend: 'torch',
			formats: ['512'],
			status: 'active',
			info: { fixed_steps: 4 },
		},
	],
};

/**
 * A stand-in Render Service on one origin: /models lists ONE_MODEL, POST /queue accepts
 * `job-1`, GET /jobs/job-1 answers 303 to `location()`; anything else goes to `other`.
 */
export function serviceHandler(location: () => string, other?: Handler): Handler {
	return (req, res, url) => {
		if (url.pathname === '/models') return sendJson(res, 200, ONE_MODEL);
		if (url.pathname === '/queue' && req.method === 'POST') {
			req.resume();
			return sendJson(res, 202, { id: 'job-1', status: 'queued' });
		}
		if (url.pathname === '/jobs/job-1/events') return sendJson(res, 404, { error: 'no sse' });
		if (url.pathname === '/jobs/job-1') {
			res.writeHead(303, { location: location() });
			return void res.end();
		}
		if (other) return other(req, res, url);
		sendJson(res, 404, { error: { message: 'not found' } });
	};
}

/** Serves a small PNG-like body. */
export const FILE_BYTES = Buffer.from('\x89PNG\r\n\x1a\nsecurity-suite-file-bytes', 'latin1');

export function fileHandler(): Handler {
	return (_req, res) => {
		res.writeHead(200, { 'content-type': 'image/png', 'content-length': FILE_BYTES.length });
		res.end(FILE_BYTES);
	};
}
