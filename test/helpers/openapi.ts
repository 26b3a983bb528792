/**
 * Checks real HTTP responses against docs/openapi.yaml (OpenAPI 3.1, JSON Schema 2020-12)
 * with ajv. Any test may use it:
 *
 *   const res = await fetch(url, { headers });
 *   expectMatchesOpenApi({ method: 'GET', url, status: res.status, headers: res.headers, body: await res.json() });
 *
 * or validate one component schema: `schemaErrors('CompleteEvent', JSON.parse(event.data))`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

type Json = Record<string, unknown>;

export interface ResponseToCheck {
	method: string;
	/** Absolute URL or path; only the path is matched against the document's paths. */
	url: string;
	status: number;
	/** A fetch `Headers`, or a record such as axios or node:http give. */
	headers?: Headers | Record<string, string | string[] | number | undefined>;
	/** Parsed JSON body, or the raw text/Buffer for non-JSON content. */
	body?: unknown;
}

const DOC_ID = 'openapi.yaml';
let cached: { doc: Json; ajv: Ajv2020 } | undefined;

function load(): { doc: Json; ajv: Ajv2020 } {
	if (cached) return cached;
	const doc = parse(readFileSync(join(__dirname, '../../docs/openapi.yaml'), 'utf8')) as Json;
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	addFormats(ajv);
	ajv.addSchema(doc, DOC_ID);
	cached = { doc, ajv };
	return cached;
}

/** The parsed OpenAPI document. */
export function openApiDocument(): Json {
	return load().doc;
}

/** Errors of `value` against `components/schemas/<name>`; empty when valid. */
export function schemaErrors(name: string, value: unknown): string[] {
	return validateRef(`#/components/schemas/${name}`, value);
}

/** Errors of a response against the document; empty when it matches. */
export function openApiErrors(res: ResponseToCheck): string[] {
	const { doc } = load();
	const path = new URL(res.url, 'http://x').pathname;
	const template = findPath(doc, path);
	const method = res.method.toLowerCase();
	const operation = template
		? (((doc.paths as Json)[template] as Json)[method] as Json | undefined)
		: undefined;
	let response: Json;
	let pointer: string;
	if (!operation) {
		// Routes and methods the document does not list still answer in the documented shape.
		const fallback = !template
			? res.status === 404
				? 'NotFound'
				: undefined
			: res.status === 405
				? 'MethodNotAllowed'
				: undefined;
		if (!fallback) return [`${res.method} ${template ?? path} is not in openapi.yaml`];
		pointer = `#/components/responses/${fallback}`;
		response = ((doc.components as Json).responses as Json)[fallback] as Json;
	} else {
		const responses = operation.responses as Json;
		const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find(
			(k) => k in responses,
		);
		if (!key) {
			// The path also exists on another origin, or the admin routes are off.
			if (res.status !== 404)
				return [`${res.method} ${template} does not document status ${res.status}`];
			return openApiErrors({ ...res, url: '/__no_such_route__' });
		}
		[response, pointer] = resolve(
			doc,
			responses[key] as Json,
			`#/paths/${escape(template as string)}/${method}/responses/${key}`,
		);
	}
	const headers = normalise(res.headers);
	return [
		...headerErrors(response, pointer, headers),
		...bodyErrors(response, pointer, headers['content-type'], res.body),
	].map((e) => `${res.method} ${template ?? path} ${res.status}: ${e}`);
}

/** Throws with every mismatch listed. */
export function expectMatchesOpenApi(res: ResponseToCheck): void {
	const errors = openApiErrors(res);
	if (errors.length > 0)
		throw new Error(`Response does not match docs/openapi.yaml:\n${errors.join('\n')}`);
}

function headerErrors(response: Json, pointer: string, headers: Record<string, string>): string[] {
	const errors: string[] = [];
	const defined = (response.headers ?? {}) as Json;
	for (const [name, raw] of Object.entries(defined)) {
		const [header, headerPointer] = resolve(
			load().doc,
			raw as Json,
			`${pointer}/headers/${escape(name)}`,
		);
		const value = headers[name.toLowerCase()];
		if (value === undefined) {
			if (header.required) errors.push(`missing header ${name}`);
			continue;
		}
		if (header.schema)
			errors.push(
				...validateRef(`${headerPointer}/schema`, value).map((e) => `header ${name}: ${e}`),
			);
	}
	return errors;
}

function bodyErrors(
	response: Json,
	pointer: string,
	contentType: string | undefined,
	body: unknown,
): string[] {
	const content = response.content as Json | undefined;
	if (!content) return [];
	const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
	if (!(mediaType in content))
		return [`content type "${mediaType}" is not one of ${Object.keys(content).join(', ')}`];
	const media = content[mediaType] as Json;
	if (!media.schema || mediaType !== 'application/json') return [];
	return validateRef(`${pointer}/content/${escape(mediaType)}/schema`, body);
}

function validateRef(pointer: string, value: unknown): string[] {
	const { ajv } = load();
	const validate =
		ajv.getSchema(`${DOC_ID}${pointer}`) ?? ajv.compile({ $ref: `${DOC_ID}${pointer}` });
	if (validate(value)) return [];
	return (validate.errors ?? []).map(
		(e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
	);
}

/** Follows a local `$ref` (one level of components/responses or components/headers). */
function resolve(doc: Json, node: Json, pointer: string): [Json, string] {
	const ref = node.$ref;
	if (typeof ref !== 'string') return [node, pointer];
	let target: unknown = doc;
	for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)[unescape(part)];
	return resolve(doc, target as Json, ref);
}

function findPath(doc: Json, path: string): string | undefined {
	const templates = Object.keys(doc.paths as Json);
	if (templates.includes(path)) return path;
	return templates.find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
}

function normalise(headers: ResponseToCheck['headers']): Record<string, string> {
	const out: Record<string, string> = {};
	if (!headers) return out;
	if (
		typeof (headers as Headers).forEach === 'function' &&
		typeof (headers as Headers).get === 'function'
	) {
		(headers as Headers).forEach((value, name) => (out[name.toLowerCase()] = value));
		return out;
	}
	for (const [name, value] of Object.entries(headers)) {
		if (value !== undefined)
			out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

const escape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescape = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');
