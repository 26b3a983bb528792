/** Bounded concurrency over many items, for engines that generate one job per item. */

export type ItemResult<R> = { ok: true; value: R } | { ok: false; error: unknown };

export const DEFAULT_CONCURRENCY = 4;

/**
 * Runs `fn` over `items` with at most `limit` in flight. Results keep the items' order; one
 * failure is recorded for its item and does not stop the others.
 */
export async function mapWithConcurrency<T, R>(
	items: readonly T[],
	limit: number = DEFAULT_CONCURRENCY,
	fn: (item: T, index: number) => Promise<R>,
): Promise<ItemResult<R>[]> {
	const results: ItemResult<R>[] = new Array(items.length);
	const width = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const index = next++;
			try {
				results[index] = { ok: true, value: await fn(items[index] as T, index) };
			} catch (error) {
				results[index] = { ok: false, error };
			}
		}
	};
	await Promise.all(Array.from({ length: width }, worker));
	return results;
}
