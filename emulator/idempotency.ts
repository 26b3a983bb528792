/**
 * Idempotency-Key handling for POST /queue, scoped per API key: the same key with the same
 * body names the same job; the same key with another body is a conflict.
 */
import { createHash } from 'node:crypto';
import { badRequest } from './errors';

export type IdempotencyLookup =
	| { kind: 'new' }
	| { kind: 'replay'; jobId: string }
	| { kind: 'conflict' };

export class IdempotencyStore {
	private readonly entries = new Map<string, { bodyHash: string; jobId: string }>();

	lookup(owner: string, key: string, body: unknown): IdempotencyLookup {
		const entry = this.entries.get(`${owner}\n${key}`);
		if (!entry) return { kind: 'new' };
		return entry.bodyHash === bodyHash(body)
			? { kind: 'replay', jobId: entry.jobId }
			: { kind: 'conflict' };
	}

	remember(owner: string, key: string, body: unknown, jobId: string): void {
		this.entries.set(`${owner}\n${key}`, { bodyHash: bodyHash(body), jobId });
	}
}

/** Validates the header; undefined when absent. */
export function idempotencyKey(header: string | string[] | undefined): string | undefined {
	if (header === undefined) return undefined;
	const key = Array.isArray(header) ? header[0] : header;
	if (key === undefined || !/^[\x21-\x7e]{1,255}$/.test(key)) {
		throw badRequest(
			'invalid_idempotency_key',
			'Idempotency-Key must be 1 to 255 visible ASCII characters.',
		);
	}
	return key;
}

/** Key order and whitespace do not make a body different. */
function bodyHash(body: unknown): string {
	return createHash('sha256').update(canonical(body)).digest('hex');
}

function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
			a < b ? -1 : 1,
		);
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
	}
	return JSON.stringify(value);
}
