/**
 * What to undo on stop, newest first. A step added after `run()` began runs at once, so a
 * process started while Ctrl+C is being handled is not left behind.
 */
export class Cleanup {
	private readonly steps: Array<() => Promise<unknown>> = [];
	private running: Promise<void> | undefined;

	add(step: () => Promise<unknown>): void {
		if (this.running) void step().catch(() => undefined);
		else this.steps.push(step);
	}

	run(): Promise<void> {
		this.running ??= (async () => {
			for (const step of this.steps.splice(0).reverse()) await step().catch(() => undefined);
		})();
		return this.running;
	}
}
