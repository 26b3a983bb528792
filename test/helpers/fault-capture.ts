/**
 * What the security suite scans for the API key: everything a scenario printed (console,
 * n8n's winston logger, Node-RED's RED.log) and everything it handed to a user (outputs,
 * errors, statuses). The key is distinctive so a hit can only be a leak.
 */

/** The API key of every fault and security scenario. */
export const SECRET_KEY = 'rs_live_SECRET_9f8e7d6c5b4a39281706';

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

export interface Capture {
	/** Every line printed since `captureOutput()`, and every text added with `add`. */
	readonly texts: string[];
	add(...values: unknown[]): void;
	/** How many captured texts contain the key. */
	leaks(key?: string): number;
	restore(): void;
}

/** Records console output (silenced) and stdout/stderr writes (passed through). */
export function captureOutput(): Capture {
	const texts: string[] = [];
	const restorers: Array<() => void> = [];
	for (const method of CONSOLE_METHODS) {
		const original = console[method];
		console[method] = (...args: unknown[]) => {
			texts.push(args.map((a) => deepText(a)).join(' '));
		};
		restorers.push(() => (console[method] = original));
	}
	for (const stream of [process.stdout, process.stderr]) {
		const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
		stream.write = ((chunk: unknown, ...rest: unknown[]) => {
			texts.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
			return original(chunk, ...rest);
		}) as typeof stream.write;
		restorers.push(() => (stream.write = original as typeof stream.write));
	}
	return {
		texts,
		add: (...values) => values.forEach((v) => texts.push(deepText(v))),
		leaks: (key = SECRET_KEY) => texts.filter((t) => t.includes(key)).length,
		restore: () => restorers.splice(0).forEach((fn) => fn()),
	};
}

/**
 * Serialises anything, errors included with their message, stack, description, context and
 * cause chain; Buffers become a placeholder (file bytes are not text a user reads).
 */
export function deepText(value: unknown): string {
	if (typeof value === 'string') return value;
	const seen = new WeakSet<object>();
	const replacer = (_key: string, v: unknown): unknown => {
		if (Buffer.isBuffer(v) || v instanceof Uint8Array) return '[bytes]';
		if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer') return '[bytes]';
		if (v && typeof v === 'object') {
			if (seen.has(v)) return '[circular]';
			seen.add(v);
		}
		if (v instanceof Error) {
			const extra: Record<string, unknown> = {};
			for (const name of Object.getOwnPropertyNames(v)) {
				extra[name] = (v as unknown as Record<string, unknown>)[name];
			}
			return { name: v.name, message: v.message, stack: v.stack, ...extra };
		}
		return v;
	};
	try {
		return JSON.stringify(value, replacer) ?? String(value);
	} catch {
		return String(value);
	}
}
