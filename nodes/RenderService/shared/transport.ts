/**
 * The core's `Transport` on n8n's own HTTP helpers, so proxies, SSRF rules and credential
 * handling are n8n's: `httpRequestWithAuthentication` for the API (n8n adds the bearer key
 * from the credential) and plain `httpRequest` for the CDN, which must never see the key.
 */
import { Readable } from 'node:stream';

import type {
	IHttpRequestOptions,
	IAllExecuteFunctions,
	RequestHelperFunctions,
} from 'n8n-workflow';

import { sseConnectionFromResponse } from '../../../core/sse-parser';
import {
	TransportError,
	mayHaveBeenSent,
	type SseConnection,
	type SseConnectRequest,
	type Transport,
	type TransportRequest,
	type TransportResponse,
} from '../../../core/transport';

export const CREDENTIAL_TYPE = 'renderServiceApi';

/** Any n8n context with request helpers: execute, load options, trigger, poll. */
export interface RequestContext {
	helpers: Pick<RequestHelperFunctions, 'httpRequest' | 'httpRequestWithAuthentication'>;
}

interface FullResponse {
	statusCode: number;
	headers: unknown;
	body: unknown;
}

function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function toTransportError(error: unknown, url: string): TransportError {
	const code = errorCode(error) ?? 'ENETWORK';
	let host = 'the server';
	try {
		host = new URL(url).host;
	} catch {
		// keep the generic name: the URL itself is what is wrong
	}
	// The message is built here, never copied from the library: it must not carry headers.
	return new TransportError(`No response from ${host} (${code})`, {
		code,
		sent: mayHaveBeenSent(code),
		cause: error,
	});
}

function normaliseHeaders(raw: unknown): Record<string, string | undefined> {
	const source =
		raw && typeof (raw as { toJSON?: unknown }).toJSON === 'function'
			? (raw as { toJSON(): Record<string, unknown> }).toJSON()
			: (raw as Record<string, unknown> | undefined);
	const headers: Record<string, string | undefined> = {};
	for (const [name, value] of Object.entries(source ?? {})) {
		if (value === undefined || value === null) continue;
		headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return headers;
}

function bodyAsText(body: unknown): string {
	if (typeof body === 'string') return body;
	if (body === undefined || body === null) return '';
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	return JSON.stringify(body);
}

function isReadable(body: unknown): body is Readable {
	return !!body && typeof (body as Readable).pipe === 'function';
}

/**
 * Races a request against the caller's signal and header timeout. n8n replaces a request's
 * own `abortSignal` with the execution's cancel signal inside `execute()`, so per-request
 * aborts (a wait timing out, an SSE reconnect) are enforced here instead.
 */
async function raceRequest(
	send: () => Promise<FullResponse>,
	req: TransportRequest,
): Promise<FullResponse> {
	const { signal, timeoutMs } = req;
	if (signal?.aborted) throw signal.reason ?? new Error('aborted');
	let cleanup = () => {};
	const guard = new Promise<never>((_resolve, reject) => {
		const onAbort = () => reject(signal?.reason ?? new Error('aborted'));
		const timer =
			timeoutMs !== undefined
				? setTimeout(
						() =>
							reject(
								new TransportError(`No response within ${timeoutMs} ms`, {
									code: 'ETIMEDOUT',
									sent: true,
								}),
							),
						timeoutMs,
					)
				: undefined;
		signal?.addEventListener('abort', onAbort, { once: true });
		cleanup = () => {
			if (timer) clearTimeout(timer);
			signal?.removeEventListener('abort', onAbort);
		};
	});
	const pending = send();
	try {
		return await Promise.race([pending, guard]);
	} catch (error) {
		// A response that arrives after we gave up must not leave a socket open.
		pending.then(
			(late) => isReadable(late.body) && late.body.destroy(),
			() => undefined,
		);
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the core classifies transport errors; nodes wrap them
		throw error;
	} finally {
		cleanup();
	}
}

/** Reads a reply as text, abandoning it (and its connection) past `maxBytes`. */
async function readCapped(body: Readable, maxBytes: number): Promise<string> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of body) {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
		total += buffer.length;
		if (total > maxBytes) {
			body.destroy();
			throw new TransportError('The reply was too large.', { code: 'ETOOLARGE', sent: true });
		}
		chunks.push(buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

/** Destroys a streamed body when the caller's signal aborts after the headers arrived. */
function bindStreamToSignal(stream: Readable, signal: AbortSignal | undefined) {
	if (!signal) return;
	const onAbort = () => stream.destroy(signal.reason instanceof Error ? signal.reason : undefined);
	signal.addEventListener('abort', onAbort, { once: true });
	stream.once('close', () => signal.removeEventListener('abort', onAbort));
}

export function createN8nTransport(context: RequestContext): Transport {
	async function send(req: TransportRequest): Promise<FullResponse> {
		const options: IHttpRequestOptions = {
			method: req.method,
			url: req.url,
			headers: { ...(req.headers ?? {}) },
			body: req.body,
			json: false,
			encoding: req.responseType === 'stream' ? 'stream' : 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			abortSignal: req.signal,
		};
		try {
			const response = (await raceRequest(
				async () =>
					(req.auth
						? await context.helpers.httpRequestWithAuthentication.call(
								context as IAllExecuteFunctions,
								CREDENTIAL_TYPE,
								options,
							)
						: await context.helpers.httpRequest(options)) as FullResponse,
				req,
			)) as FullResponse;
			return response;
		} catch (error) {
			if (req.signal?.aborted) throw req.signal.reason ?? error;
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the core classifies transport errors; nodes wrap them
			if (error instanceof TransportError) throw error;
			throw toTransportError(error, req.url);
		}
	}

	async function request(
		req: TransportRequest & { responseType: 'text' },
	): Promise<TransportResponse<string>>;
	async function request(
		req: TransportRequest & { responseType: 'stream' },
	): Promise<TransportResponse<Readable>>;
	async function request(req: TransportRequest): Promise<TransportResponse<string | Readable>> {
		if (req.responseType === 'text' && req.maxBytes !== undefined) {
			// n8n's helpers have no size limit: read the reply as a stream and stop at the cap.
			const streamed = await request({ ...req, responseType: 'stream' });
			return { ...streamed, body: await readCapped(streamed.body, req.maxBytes) };
		}
		const response = await send(req);
		const headers = normaliseHeaders(response.headers);
		if (req.responseType === 'stream') {
			const body = response.body;
			if (!isReadable(body)) {
				const text = Buffer.from(bodyAsText(body));
				return { status: response.statusCode, headers, body: Readable.from([text]) };
			}
			bindStreamToSignal(body, req.signal);
			return { status: response.statusCode, headers, body };
		}
		return { status: response.statusCode, headers, body: bodyAsText(response.body) };
	}

	async function openEventStream(req: SseConnectRequest): Promise<SseConnection> {
		const headers: Record<string, string> = {
			accept: 'text/event-stream',
			'cache-control': 'no-cache',
		};
		if (req.lastEventId !== undefined) headers['last-event-id'] = req.lastEventId;
		const response = await request({
			method: 'GET',
			url: req.url,
			headers,
			auth: true,
			responseType: 'stream',
			signal: req.signal,
		});
		return sseConnectionFromResponse(response);
	}

	return { request, openEventStream };
}
