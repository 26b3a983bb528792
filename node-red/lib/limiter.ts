/**
 * Bounds how many messages one node works on at once. Extra messages wait in arrival order;
 * `abortAll` (node close) rejects the waiting ones and aborts the running ones through the
 * signal each task receives.
 */
export class AbortedByCloseError extends Error {
	constructor() {
		super('The node was closed or redeployed.');
		this.name = 'AbortedByCloseError';
	}
}

interface Waiting {
	start: () => void;
	reject: (err: Error) => void;
}

export class Limiter {
	private running = 0;
	private readonly waiting: Waiting[] = [];
	private readonly controller = new AbortController();

	constructor(private readonly limit: number) {}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** Messages waiting for a free slot. */
	get queued(): number {
		return this.waiting.length;
	}

	get active(): number {
		return this.running;
	}

	get closed(): boolean {
		return this.controller.signal.aborted;
	}

	async run<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
		if (this.closed) throw new AbortedByCloseError();
		if (this.running >= this.limit) {
			await new Promise<void>((start, reject) => this.waiting.push({ start, reject }));
		}
		this.running++;
		try {
			return await task(this.controller.signal);
		} finally {
			this.running--;
			this.waiting.shift()?.start();
		}
	}

	abortAll(): void {
		this.controller.abort(new AbortedByCloseError());
		for (const w of this.waiting.splice(0)) w.reject(new AbortedByCloseError());
	}
}

/** Reads a positive integer setting, falling back when it is missing or invalid. */
export function positiveInt(value: unknown, fallback: number): number {
	const n = typeof value === 'number' ? value : Number.parseInt(String(value ?? ''), 10);
	return Number.isInteger(n) && n > 0 ? n : fallback;
}
