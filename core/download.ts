/**
 * Fetching a finished job's result from the address of its 303. The request carries the API
 * key only when that address has the API's own origin (never for the CDN); redirects are
 * followed by hand with the same rule at every hop. The body is streamed, checked against
 * Content-Length and the size cap, and resumed with a byte Range when the connection drops.
 * An expired signed address (401/403/410) is refreshed once through `refreshUrl`.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { DownloadOptions } from './api';
import type { CoreContext } from './context';
import { CdnError, RenderServiceError } from './errors';
import { abortedError, asTransportFailure, resolveUrl } from './http';
import { backoffDelay, ERROR_BACKOFF, isTransientStatus } from './retry';
import { TransportError, type TransportResponse } from './transport';
import type { DownloadedBuffer, DownloadedFile } from './types';
import { sleepOrAbort } from './wait-helpers';

const MAX_HOPS = 5;
const MAX_RESUMES = 5;
const MAX_TRANSIENT_RETRIES = 3;

const EXTENSIONS: Record<string, string> = {
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/jpg': 'jpg',
	'image/webp': 'webp',
	'image/gif': 'gif',
	'image/avif': 'avif',
	'image/svg+xml': 'svg',
	'video/mp4': 'mp4',
	'video/webm': 'webm',
	'video/quicktime': 'mov',
	'application/json': 'json',
	'application/octet-stream': 'bin',
};

export function extensionFor(mimeType: string): string {
	return EXTENSIONS[mimeType] ?? (mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin');
}

export function fileNameFor(jobId: string, mimeType: string): string {
	return `${jobId.replace(/[^A-Za-z0-9._-]/g, '_')}.${extensionFor(mimeType)}`;
}

function origin(url: string): string | undefined {
	try {
		return new URL(url).origin;
	} catch {
		return undefined;
	}
}

/** The key goes only to the API's own origins, never to the CDN or anywhere else. */
export function mayAuthenticate(ctx: CoreContext, url: string): boolean {
	const target = origin(url);
	return (
		target !== undefined && (target === origin(ctx.baseUrl) || target === origin(ctx.asyncUrl))
	);
}

function cdnError(jobId: string, message: string, hint: string, status?: number): CdnError {
	return new CdnError(`Job ${jobId}: ${message}`, { jobId, hint, status });
}

function checkAddress(ctx: CoreContext, jobId: string, url: string): void {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw cdnError(
			jobId,
			'the result address is not a valid URL.',
			'Contact the Render Service; the job result cannot be fetched.',
		);
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		throw cdnError(
			jobId,
			`the result address uses "${parsed.protocol}", which is not allowed.`,
			'Only http and https result addresses are fetched.',
		);
	}
	const hosts = ctx.allowedCdnHosts;
	if (hosts && hosts.length > 0 && !mayAuthenticate(ctx, url) && !hosts.includes(parsed.hostname)) {
		throw cdnError(
			jobId,
			`the result is hosted on ${parsed.hostname}, which is not in the allowed CDN hosts.`,
			'Add this host to the allowed CDN hosts, or remove that restriction.',
		);
	}
}

interface Opened {
	res: TransportResponse<Readable>;
	url: string;
}

interface Session {
	ctx: CoreContext;
	jobId: string;
	options: DownloadOptions;
	refreshed: boolean;
}

/** One GET of the result (following redirects by hand), from byte `start`. */
async function open(
	session: Session,
	startUrl: string,
	start: number,
	ifRange?: string,
): Promise<Opened> {
	const { ctx, jobId, options } = session;
	let url = startUrl;
	let hops = 0;
	let transient = 0;
	for (;;) {
		checkAddress(ctx, jobId, url);
		// Identity encoding: Content-Length and Range offsets must count the bytes we keep.
		const headers: Record<string, string> = { accept: '*/*', 'accept-encoding': 'identity' };
		if (start > 0) headers.range = `bytes=${start}-`;
		if (start > 0 && ifRange) headers['if-range'] = ifRange;
		let res: TransportResponse<Readable>;
		try {
			res = await ctx.transport.request({
				method: 'GET',
				url,
				auth: mayAuthenticate(ctx, url),
				headers,
				responseType: 'stream',
				signal: options.signal,
				timeoutMs: ctx.requestTimeoutMs,
			});
		} catch (error) {
			const failure = asTransportFailure(ctx, error, options.signal, {
				action: 'downloading',
				jobId,
			});
			if (!(failure instanceof TransportError) || transient >= MAX_TRANSIENT_RETRIES) {
				throw failure instanceof TransportError
					? cdnError(
							jobId,
							`could not download the result (${failure.message}).`,
							'Check the network; the result stays available until its link expires.',
						)
					: failure;
			}
			await sleepOrAbort(
				ctx,
				backoffDelay(transient++, ERROR_BACKOFF, ctx.random),
				options.signal,
				jobId,
			);
			continue;
		}
		const { status } = res;
		if (status === 200 || status === 206) return { res, url };
		res.body.destroy();
		if (status >= 300 && status < 400 && res.headers.location && hops < MAX_HOPS) {
			const next = resolveUrl(res.headers.location, url);
			if (next) {
				url = next;
				hops++;
				continue;
			}
		}
		if (
			(status === 401 || status === 403 || status === 410) &&
			options.refreshUrl &&
			!session.refreshed
		) {
			session.refreshed = true;
			url = await options.refreshUrl();
			continue;
		}
		if (status === 401 || status === 403 || status === 410) {
			throw cdnError(
				jobId,
				`the result link was refused by the CDN (HTTP ${status}); it has probably expired.`,
				'Run the job again, or fetch the result sooner after it completes.',
				status,
			);
		}
		if (status === 416) {
			throw cdnError(
				jobId,
				'the CDN refused to resume the download (HTTP 416).',
				'Run the download again.',
				status,
			);
		}
		if (isTransientStatus(status) && transient < MAX_TRANSIENT_RETRIES) {
			await sleepOrAbort(
				ctx,
				backoffDelay(transient++, ERROR_BACKOFF, ctx.random),
				options.signal,
				jobId,
			);
			continue;
		}
		throw cdnError(
			jobId,
			`the CDN answered HTTP ${status} for the result.`,
			'Try again later; if it persists, contact the Render Service.',
			status,
		);
	}
}

/** Total size from Content-Range ("bytes 10-99/100") or Content-Length. */
function totalSize(res: TransportResponse<Readable>, start: number): number | undefined {
	const range = res.headers['content-range'];
	const match = range ? /\/(\d+)\s*$/.exec(range) : null;
	if (res.status === 206 && match?.[1]) return Number(match[1]);
	const length = res.headers['content-length'];
	if (length === undefined || !/^\d+$/.test(length.trim())) return undefined;
	return res.status === 206 ? start + Number(length) : Number(length);
}

export async function downloadResult(
	ctx: CoreContext,
	jobId: string,
	resultUrl: string,
	options: DownloadOptions = {},
): Promise<DownloadedFile> {
	const session: Session = { ctx, jobId, options, refreshed: false };
	const first = await open(session, resultUrl, 0);
	const total = totalSize(first.res, 0);
	if (total !== undefined && total > ctx.maxDownloadBytes) {
		first.res.body.destroy();
		throw tooLarge(ctx, jobId, total);
	}
	const mimeType = (first.res.headers['content-type'] ?? 'application/octet-stream')
		.split(';')[0]!
		.trim()
		.toLowerCase();
	const out = new PassThrough();
	void pump(session, first, total, out);
	return {
		jobId,
		stream: out,
		mimeType,
		size: total,
		fileName: fileNameFor(jobId, mimeType),
		url: first.url,
	};
}

function tooLarge(ctx: CoreContext, jobId: string, size: number): CdnError {
	return cdnError(
		jobId,
		`the result is ${size} bytes, more than the ${ctx.maxDownloadBytes}-byte limit.`,
		'Raise the maximum download size, or choose a smaller format.',
	);
}

/** Copies bodies into `out`, resuming after drops, until the whole file has passed. */
async function pump(
	session: Session,
	first: Opened,
	total: number | undefined,
	out: PassThrough,
): Promise<void> {
	const { ctx, jobId, options } = session;
	let current = first;
	let received = 0;
	let resumes = 0;
	const etag = first.res.headers.etag;
	for (;;) {
		// A 200 answer to a Range request restarts at byte 0; skip what was already passed on.
		let skip = current.res.status === 200 ? received : 0;
		let broke = false;
		try {
			for await (const raw of current.res.body) {
				let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
				if (skip > 0) {
					const dropped = Math.min(skip, chunk.length);
					skip -= dropped;
					chunk = chunk.subarray(dropped);
					if (chunk.length === 0) continue;
				}
				received += chunk.length;
				if (received > ctx.maxDownloadBytes) throw tooLarge(ctx, jobId, received);
				if (total !== undefined && received > total) {
					throw cdnError(
						jobId,
						`the CDN sent more bytes than announced (${received} > ${total}).`,
						'Run the download again.',
					);
				}
				if (!out.write(chunk)) await drained(out);
				if (out.destroyed) {
					current.res.body.destroy();
					return;
				}
			}
		} catch (error) {
			if (out.destroyed) return;
			if (error instanceof RenderServiceError) {
				current.res.body.destroy();
				out.destroy(error);
				return;
			}
			broke = true;
		}
		if (options.signal?.aborted) {
			out.destroy(abortedError(jobId));
			return;
		}
		// With a known size, having it all is what counts (a reset after the last byte is harmless).
		if (total !== undefined ? received === total : !broke) {
			out.end();
			return;
		}
		if (resumes >= MAX_RESUMES) {
			out.destroy(
				cdnError(
					jobId,
					`the download kept breaking off (${received} of ${total ?? 'unknown'} bytes received).`,
					'Check the network and run again.',
				),
			);
			return;
		}
		ctx.logger?.debug(`job ${jobId}: result download broke at ${received} bytes; resuming`);
		try {
			if (resumes > 0)
				await sleepOrAbort(
					ctx,
					backoffDelay(resumes - 1, ERROR_BACKOFF, ctx.random),
					options.signal,
					jobId,
				);
			resumes++;
			current = await open(session, current.url, received, etag);
		} catch (error) {
			out.destroy(toError(error, jobId));
			return;
		}
	}
}

function toError(error: unknown, jobId: string): Error {
	if (error instanceof Error) return error;
	return cdnError(jobId, 'the download failed.', 'Run it again.');
}

function drained(out: PassThrough): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			out.off('drain', done);
			out.off('close', done);
			resolve();
		};
		out.on('drain', done);
		out.on('close', done);
	});
}

export async function downloadToBuffer(
	ctx: CoreContext,
	jobId: string,
	resultUrl: string,
	options: DownloadOptions = {},
): Promise<DownloadedBuffer> {
	const file = await downloadResult(ctx, jobId, resultUrl, options);
	const chunks: Buffer[] = [];
	for await (const chunk of file.stream) chunks.push(chunk);
	const data = Buffer.concat(chunks);
	const { stream: _stream, ...rest } = file;
	return { ...rest, data, size: data.length };
}
