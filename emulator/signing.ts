/**
 * Signed, expiring CDN URLs. The signature is the only credential the CDN accepts, so a client
 * never needs (and must never send) its API key there. `expireAll` bumps a generation number
 * so every URL issued before answers 403.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type Verdict = 'ok' | 'expired' | 'forged';

export class UrlSigner {
	private readonly secret = randomBytes(32);
	private generation = 0;
	origin = '';

	constructor(private readonly ttlMs: number) {}

	sign(fileName: string): string {
		const exp = Date.now() + this.ttlMs;
		const v = this.generation;
		return `${this.origin}/results/${fileName}?exp=${exp}&v=${v}&sig=${this.mac(fileName, exp, v)}`;
	}

	verify(fileName: string, query: URLSearchParams): Verdict {
		const exp = Number(query.get('exp'));
		const v = Number(query.get('v'));
		const sig = query.get('sig') ?? '';
		if (!Number.isInteger(exp) || !Number.isInteger(v)) return 'forged';
		const expected = Buffer.from(this.mac(fileName, exp, v));
		const given = Buffer.from(sig);
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
		if (v < this.generation || exp <= Date.now()) return 'expired';
		return 'ok';
	}

	expireAll(): void {
		this.generation++;
	}

	private mac(fileName: string, exp: number, v: number): string {
		return createHmac('sha256', this.secret).update(`${fileName}|${exp}|${v}`).digest('base64url');
	}
}
