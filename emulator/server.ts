/** Starts the three origins (catalogue, async tier, CDN) on their own ports. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { serveCdn } from './cdn';
import { type Context, createContext } from './context';
import { createControl } from './control';
import { badRequest, sendError, toHttpError } from './errors';
import { routeAsync, routeCatalogue } from './routes';
import type { EmulatorOptions, RunningEmulator } from './types';

type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

export async function createEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	const ctx = createContext(options);
	const control = createControl(ctx);
	const port = options.port ?? 0;
	const servers: Server[] = [];
	const start = async (name: string, wanted: number, route: Route): Promise<string> => {
		const server = createServer(handler(ctx, name, route));
		server.on('clientError', answerClientError);
		servers.push(server);
		return origin(ctx.settings.host, await listen(server, ctx.settings.host, wanted));
	};
	try {
		const baseUrl = await start('catalogue', port, (req, res, url) =>
			routeCatalogue(ctx, req, res, url),
		);
		const asyncUrl = await start(
			'async',
			options.asyncPort ?? (port ? port + 1 : 0),
			(req, res, url) => routeAsync(ctx, control, req, res, url),
		);
		const cdnUrl = await start('cdn', options.cdnPort ?? (port ? port + 2 : 0), (req, res, url) =>
			serveCdn(ctx, req, res, url),
		);
		ctx.asyncUrl = asyncUrl;
		ctx.signer.origin = cdnUrl;
		const apiKey = [...ctx.apiKeys][0] as string;
		return { ...control, baseUrl, asyncUrl, cdnUrl, apiKey, close: () => shutdown(ctx, servers) };
	} catch (err) {
		await shutdown(ctx, servers);
		throw err;
	}
}

function handler(ctx: Context, name: string, route: Route) {
	return (req: IncomingMessage, res: ServerResponse): void => {
		res.on('finish', () =>
			ctx.log(`${name} ${req.method} ${(req.url ?? '').split('?')[0]} ${res.statusCode}`),
		);
		let url: URL;
		try {
			url = new URL(`http://emulator${req.url ?? '/'}`);
		} catch {
			sendError(res, badRequest('invalid_url', 'The request URL cannot be parsed.'));
			return;
		}
		route(req, res, url).catch((err: unknown) => {
			const httpError = toHttpError(err);
			if (httpError.status === 500) ctx.log(`${name} internal error: ${String(err)}`);
			if (!res.destroyed) sendError(res, httpError);
		});
	};
}

/** Unparseable HTTP still gets the error shape when the socket can take it. */
function answerClientError(_err: Error, socket: Duplex): void {
	if (!socket.writable) {
		socket.destroy();
		return;
	}
	const body = JSON.stringify({
		error: { code: 'bad_request', message: 'The request is not valid HTTP.' },
	});
	socket.end(
		`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
}

function listen(server: Server, host: string, port: number): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve((server.address() as AddressInfo).port);
		});
	});
}

function origin(host: string, port: number): string {
	const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
	return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

async function shutdown(ctx: Context, servers: Server[]): Promise<void> {
	ctx.store.close();
	for (const timer of ctx.timers) clearTimeout(timer);
	ctx.timers.clear();
	for (const stream of ctx.streams) stream.destroy();
	ctx.streams.clear();
	await Promise.all(
		servers.map(
			(server) =>
				new Promise<void>((resolve) => {
					if (!server.listening) return resolve();
					server.close(() => resolve());
					server.closeAllConnections();
				}),
		),
	);
}
