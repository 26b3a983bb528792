/** Bearer authentication. The key itself never appears in a message or a log line. */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors';

/** What a job and an idempotency key are scoped to, without keeping the raw key around. */
export function keyId(apiKey: string): string {
	return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

export function authenticate(req: IncomingMessage, accepted: ReadonlySet<string>): string {
	const header = req.headers.authorization;
	const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
	if (!match) {
		throw new HttpError(
			401,
			'unauthorized',
			'Missing API key: send "Authorization: Bearer <API key>".',
			undefined,
			{
				'WWW-Authenticate': 'Bearer realm="render-service"',
			},
		);
	}
	const key = match[1] as string;
	if (!accepted.has(key)) {
		throw new HttpError(401, 'unauthorized', 'The API key is not valid.', undefined, {
			'WWW-Authenticate': 'Bearer realm="render-service", error="invalid_token"',
		});
	}
	return key;
}
