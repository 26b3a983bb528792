import { Readable } from 'node:stream';

import type { IHttpRequestOptions } from 'n8n-workflow';

import { TransportError } from '../../core/transport';
import { n8nSleep } from '../../nodes/RenderService/shared/sleep';
import { createN8nTransport } from '../../nodes/RenderService/shared/transport';

type Call = { auth: boolean; credentialType?: string; options: IHttpRequestOptions };

function fakeContext(answer: (options: IHttpRequestOptions) => Promise<unknown>) {
	const calls: Call[] = [];
	const context = {
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) => {
				calls.push({ auth: false, options });
				return await answer(options);
			},
			httpRequestWithAuthentication: async (
				credentialType: string,
				options: IHttpRequestOptions,
			) => {
				calls.push({ auth: true, credentialType, options });
				return await answer(options);
			},
		},
	};
	return { context, calls };
}

const ok = (body: unknown, headers: Record<string, unknown> = {}, statusCode = 200) =>
	Promise.resolve({ statusCode, headers, body });

function networkError(code: string) {
	return Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
}

describe('n8n transport', () => {
	it('sends API requests through the credential and CDN requests without it', async () => {
		const { context, calls } = fakeContext(
			async () => await ok('{"a":1}', { 'Content-Type': 'application/json' }),
		);
		const transport = createN8nTransport(context as never);
		const api = await transport.request({
			method: 'GET',
			url: 'http://api/models',
			auth: true,
			responseType: 'text',
		});
		await transport.request({
			method: 'GET',
			url: 'http://cdn/x.png',
			auth: false,
			responseType: 'text',
		});
		expect(api).toEqual({
			status: 200,
			headers: { 'content-type': 'application/json' },
			body: '{"a":1}',
		});
		expect(calls.map((c) => [c.auth, c.credentialType])).toEqual([
			[true, 'renderServiceApi'],
			[false, undefined],
		]);
		for (const { options } of calls) {
			expect(options).toMatchObject({
				disableFollowRedirect: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				encoding: 'text',
				json: false,
			});
			expect(JSON.stringify(options.headers ?? {})).not.toMatch(/authorization/i);
		}
	});

	it('returns redirects and error statuses instead of following or throwing', async () => {
		const { context } = fakeContext(
			async () => await ok('', { location: 'http://cdn/r.png' }, 303),
		);
		const response = await createN8nTransport(context as never).request({
			method: 'GET',
			url: 'http://api/jobs/1',
			auth: true,
			responseType: 'text',
		});
		expect(response.status).toBe(303);
		expect(response.headers.location).toBe('http://cdn/r.png');
	});

	it('hands streamed bodies over as streams', async () => {
		const { context, calls } = fakeContext(
			async () => await ok(Readable.from([Buffer.from('abc')])),
		);
		const response = await createN8nTransport(context as never).request({
			method: 'GET',
			url: 'http://cdn/x',
			auth: false,
			responseType: 'stream',
		});
		const chunks: Buffer[] = [];
		for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
		expect(Buffer.concat(chunks).toString()).toBe('abc');
		expect(calls[0]?.options.encoding).toBe('stream');
	});

	it.each([
		['ECONNREFUSED', false],
		['ENOTFOUND', false],
		['ECONNRESET', true],
		['ETIMEDOUT', true],
	])('maps %s to a TransportError with sent=%s', async (code, sent) => {
		// n8n wraps network failures in its own error with the original as `cause`.
		const { context } = fakeContext(async () => {
			throw Object.assign(new Error('wrapped'), { cause: networkError(code) });
		});
		const failure = createN8nTransport(context as never).request({
			method: 'POST',
			url: 'http://api/queue',
			auth: true,
			responseType: 'text',
		});
		await expect(failure).rejects.toBeInstanceOf(TransportError);
		await expect(failure).rejects.toMatchObject({ code, sent });
	});

	it('gives up at the per-request timeout and when the caller aborts', async () => {
		const { context } = fakeContext(() => new Promise(() => undefined));
		const transport = createN8nTransport(context as never);
		await expect(
			transport.request({
				method: 'GET',
				url: 'http://api/x',
				auth: true,
				responseType: 'text',
				timeoutMs: 20,
			}),
		).rejects.toMatchObject({ code: 'ETIMEDOUT', sent: true });
		const controller = new AbortController();
		const pending = transport.request({
			method: 'GET',
			url: 'http://api/x',
			auth: true,
			responseType: 'text',
			signal: controller.signal,
		});
		const reason = new Error('stop');
		controller.abort(reason);
		await expect(pending).rejects.toBe(reason);
	});

	it('opens SSE with the right headers and parses events', async () => {
		const body = Readable.from([Buffer.from('id: 1\nevent: progress\ndata: {"p":0.5}\n\n')]);
		const { context, calls } = fakeContext(
			async () => await ok(body, { 'content-type': 'text/event-stream' }),
		);
		const connection = await createN8nTransport(context as never).openEventStream({
			url: 'http://api/jobs/1/events',
			lastEventId: '0',
			signal: new AbortController().signal,
		});
		const items = [];
		for await (const item of connection.items) items.push(item);
		expect(items).toContainEqual({
			type: 'event',
			message: expect.objectContaining({ event: 'progress', data: '{"p":0.5}', id: '1' }),
		});
		expect(calls[0]).toMatchObject({
			auth: true,
			options: { headers: { accept: 'text/event-stream', 'last-event-id': '0' } },
		});
	});
});

describe('n8n sleep', () => {
	it('resolves after the delay and rejects at once with the abort reason', async () => {
		await expect(n8nSleep(5)).resolves.toBeUndefined();
		const controller = new AbortController();
		const pending = n8nSleep(60_000, controller.signal);
		const reason = new Error('cancelled');
		controller.abort(reason);
		await expect(pending).rejects.toBe(reason);
	});
});
