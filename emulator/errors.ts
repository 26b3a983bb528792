/** The one error shape of every origin: `{ "error": { "code", "message", "field"? } }`. */
import type { ServerResponse } from 'node:http';

export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly field?: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
		this.name = 'HttpError';
	}
}

export const badRequest = (code: string, message: string): HttpError =>
	new HttpError(400, code, message);
export const unprocessable = (code: string, message: string, field: string): HttpError =>
	new HttpError(422, code, message, field);
export const notFound = (message = 'No such route.', code = 'not_found'): HttpError =>
	new HttpError(404, code, message);
export const methodNotAllowed = (allow: string[]): HttpError =>
	new HttpError(
		405,
		'method_not_allowed',
		`Method not allowed; use ${allow.join(' or ')}.`,
		undefined,
		{
			Allow: allow.join(', '),
		},
	);

export function sendJson(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent) {
		res.destroy();
		return;
	}
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': String(Buffer.byteLength(text)),
		'Cache-Control': 'no-store',
		...headers,
	});
	res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError): void {
	const error: { code: string; message: string; field?: string } = {
		code: err.code,
		message: err.message,
	};
	if (err.field !== undefined) error.field = err.field;
	sendJson(res, err.status, { error }, err.headers);
}

/** Anything that is not an HttpError is a bug in the emulator: answer 500, never crash. */
export function toHttpError(err: unknown): HttpError {
	if (err instanceof HttpError) return err;
	return new HttpError(500, 'internal_error', 'The emulator hit an unexpected error.');
}
