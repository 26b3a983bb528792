/** Reading request bodies with a size cap, and parsing them as JSON. */
import type { IncomingMessage } from 'node:http';
import { HttpError, badRequest } from './errors';

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared > maxBytes) {
		// Drain without buffering so the 413 reaches the client instead of a reset.
		req.resume();
		return Promise.reject(tooLarge(maxBytes));
	}
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let failed = false;
		req.on('data', (chunk: Buffer) => {
			if (failed) return;
			size += chunk.length;
			if (size > maxBytes) {
				failed = true;
				chunks.length = 0;
				reject(tooLarge(maxBytes));
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => {
			if (!failed) resolve(Buffer.concat(chunks));
		});
		req.on('error', (err) => {
			if (!failed) reject(err);
			failed = true;
		});
		// A client that disconnects mid-body must not leave the promise pending.
		req.on('close', () => {
			if (!failed && !req.complete)
				reject(badRequest('incomplete_body', 'The request body was cut off.'));
			failed = true;
		});
	});
}

function tooLarge(maxBytes: number): HttpError {
	return new HttpError(413, 'payload_too_large', `Request body exceeds ${maxBytes} bytes.`);
}

export function parseJsonObject(raw: Buffer): Record<string, unknown> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		throw badRequest('invalid_json', 'Request body is not valid JSON.');
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw badRequest('invalid_body', 'Request body must be a JSON object.');
	}
	return parsed as Record<string, unknown>;
}
