/**
 * Serialises "set the job duration, submit" pairs on one emulator: `setTiming` applies to the
 * next job created, so two submissions must not interleave.
 */
export class Gate {
	private tail: Promise<void> = Promise.resolve();

	/** Runs `fn` after every earlier holder has finished. */
	async hold<T>(fn: () => Promise<T>): Promise<T> {
		const previous = this.tail;
		let release!: () => void;
		this.tail = new Promise((resolve) => (release = resolve));
		await previous;
		try {
			return await fn();
		} finally {
			release();
		}
	}
}
