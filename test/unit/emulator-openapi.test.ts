/** The OpenAPI helper really rejects responses that break docs/openapi.yaml. */
import {
	expectMatchesOpenApi,
	openApiDocument,
	openApiErrors,
	schemaErrors,
} from '../helpers/openapi';

const json = { 'content-type': 'application/json; charset=utf-8' };

describe('test/helpers/openapi', () => {
	it('parses docs/openapi.yaml as OpenAPI 3.1', () => {
		expect(openApiDocument().openapi).toBe('3.1.0');
	});

	it('accepts a documented response', () => {
		expect(
			openApiErrors({
				method: 'GET',
				url: 'http://127.0.0.1:1/jobs/abc',
				status: 200,
				headers: { ...json, 'retry-after': '1' },
				body: { id: 'abc', status: 'queued', queue_position: 0 },
			}),
		).toEqual([]);
	});

	it.each([
		['a queued job without queue_position', 200, { id: 'a', status: 'queued' }, {}],
		['a complete status in a 200', 200, { id: 'a', status: 'complete' }, {}],
		['a failed job without error', 200, { id: 'a', status: 'failed' }, {}],
		['an undocumented field', 200, { id: 'a', status: 'running', progress: 0.5, eta: 3 }, {}],
		['progress above 1', 200, { id: 'a', status: 'running', progress: 1.5 }, {}],
		['an error body without code', 404, { error: { message: 'x' } }, {}],
		['a 303 without Location', 303, { id: 'a', status: 'complete', url: 'http://cdn/x' }, {}],
		['an undocumented status', 418, {}, {}],
	])('rejects %s', (_label, status, body, headers) => {
		expect(
			openApiErrors({
				method: 'GET',
				url: '/jobs/a',
				status,
				headers: { ...json, ...headers },
				body,
			}).length,
		).toBeGreaterThan(0);
	});

	it('requires WWW-Authenticate on 401 and Allow on 405', () => {
		const error = { error: { code: 'unauthorized', message: 'No key.' } };
		expect(() =>
			expectMatchesOpenApi({
				method: 'GET',
				url: '/models',
				status: 401,
				headers: json,
				body: error,
			}),
		).toThrow(/WWW-Authenticate/);
		const notAllowed = { error: { code: 'method_not_allowed', message: 'No.' } };
		expect(
			openApiErrors({ method: 'PUT', url: '/queue', status: 405, headers: json, body: notAllowed }),
		).toEqual([expect.stringMatching(/Allow/)]);
	});

	it('validates SSE event payloads by component name', () => {
		expect(schemaErrors('ProgressEvent', { id: 'a', progress: 0.2 })).toEqual([]);
		expect(schemaErrors('CompleteEvent', { id: 'a', status: 'complete' })).not.toEqual([]);
	});
});
