/**
 * The CDN origin: serves result files at signed URLs, with ETag and byte ranges. It takes no
 * API key: a request carrying `Authorization` is refused (400) and counted, so a client that
 * leaks the key to the CDN fails loudly in tests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from './context';
import { HttpError, methodNotAllowed, notFound } from './errors';
import { delay } from './guard';
import { parseRange } from './range';

const RESULT_PATH = /^\/results\/([A-Za-z0-9-]+)\.(png|gif)$/;

export async function serveCdn(
	ctx: Context,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	ctx.counters.requests.cdn++;
	if (req.headers.authorization !== undefined) {
		ctx.counters.cdnAuthorizationHeaders++;
		throw new HttpError(
			400,
			'authorization_not_allowed',
			'The CDN takes no Authorization header; the signed URL is the credential.',
		);
	}
	const match = RESULT_PATH.exec(url.pathname);
	if (!match) throw notFound();
	if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(['GET', 'HEAD']);
	const latency = ctx.faults.latency('cdn');
	if (latency > 0) await delay(ctx, latency);
	const fault = ctx.faults.draw('cdn');
	if (fault) {
		ctx.counters.injectedErrors++;
		throw fault;
	}
	const [, jobId = '', ext = ''] = match;
	const verdict = ctx.signer.verify(`${jobId}.${ext}`, url.searchParams);
	if (verdict === 'forged')
		throw new HttpError(403, 'invalid_signature', 'The URL signature is not valid.');
	if (verdict === 'expired')
		throw new HttpError(
			403,
			'url_expired',
			'The signed URL has expired; ask the job for a new one.',
		);
	const job = ctx.store.get(jobId);
	if (!job || job.status !== 'complete')
		throw notFound('No result at this address.', 'result_not_found');
	const file = ctx.results.get(job.request);
	const headers: Record<string, string> = {
		'Content-Type': file.mimeType,
		ETag: file.etag,
		'Accept-Ranges': 'bytes',
		'Cache-Control': 'private, max-age=600',
		'Content-Disposition': `inline; filename="${jobId}.${file.extension}"`,
	};
	if (req.headers['if-none-match'] === file.etag) {
		res.writeHead(304, headers).end();
		return;
	}
	const size = file.data.length;
	const range = parseRange(ifRangeAllows(req, file.etag) ? req.headers.range : undefined, size);
	if (range.kind === 'unsatisfiable') {
		throw new HttpError(416, 'range_not_satisfiable', `The file has ${size} bytes.`, undefined, {
			'Content-Range': `bytes */${size}`,
		});
	}
	const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, size - 1];
	if (range.kind === 'partial') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
	headers['Content-Length'] = String(end - start + 1);
	res.writeHead(range.kind === 'partial' ? 206 : 200, headers);
	if (req.method === 'HEAD') {
		res.end();
		return;
	}
	writeBody(ctx, res, jobId, file.data.subarray(start, end + 1));
}

/** `If-Range` with another ETag means "send the whole file". */
function ifRangeAllows(req: IncomingMessage, etag: string): boolean {
	const ifRange = req.headers['if-range'];
	return ifRange === undefined || ifRange === etag;
}

function writeBody(ctx: Context, res: ServerResponse, jobId: string, body: Buffer): void {
	const limit = ctx.faults.cdn.cdnTruncateAfterBytes;
	let data = body;
	let truncate = false;
	// Once per job: the client's Range resume after the drop must be able to succeed.
	if (limit !== undefined && !ctx.truncatedJobs.has(jobId) && body.length > limit) {
		ctx.truncatedJobs.add(jobId);
		data = body.subarray(0, limit);
		truncate = true;
	}
	const writeLast = (chunk: Buffer): void => {
		if (truncate) res.write(chunk, () => res.destroy());
		else res.end(chunk);
	};
	const rate = ctx.faults.cdn.cdnSlowBytesPerSecond;
	if (!rate || rate <= 0) writeLast(data);
	else writeSlowly(ctx, res, data, rate, writeLast);
}

/** Ten slices a second at the configured rate, stopping if the client goes away. */
function writeSlowly(
	ctx: Context,
	res: ServerResponse,
	data: Buffer,
	rate: number,
	writeLast: (chunk: Buffer) => void,
): void {
	const slice = Math.max(1, Math.floor(rate / 10));
	let offset = 0;
	const stop = (): void => {
		clearInterval(timer);
		ctx.timers.delete(timer);
	};
	const timer = setInterval(() => {
		if (res.destroyed) return stop();
		const chunk = data.subarray(offset, offset + slice);
		offset += slice;
		if (offset < data.length) {
			res.write(chunk);
			return;
		}
		stop();
		writeLast(chunk);
	}, 100);
	ctx.timers.add(timer);
	res.on('close', stop);
}
