/**
 * Waiting in tests for something another process, server or engine does: poll a condition
 * instead of sleeping a guessed time, and fail with what was awaited if it never happens.
 */

/** Polls `check` until it holds; throws `timed out waiting for <what>` after `ms`. */
export async function until(
	check: () => boolean | Promise<boolean>,
	ms = 10_000,
	what = 'condition',
): Promise<void> {
	const start = Date.now();
	while (!(await check())) {
		if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}
