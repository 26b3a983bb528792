import { mapWithConcurrency } from '../../core/concurrency';

describe('mapWithConcurrency', () => {
	it('keeps item order, bounds the work in flight, and isolates failures', async () => {
		let active = 0;
		let peak = 0;
		const results = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
			active++;
			peak = Math.max(peak, active);
			await new Promise((resolve) => setTimeout(resolve, n));
			active--;
			if (n === 2) throw new Error('two failed');
			return n * 10;
		});
		expect(peak).toBe(3);
		expect(results.map((r) => (r.ok ? r.value : (r.error as Error).message))).toEqual([
			50,
			10,
			40,
			'two failed',
			30,
			0,
			60,
		]);
	});

	it('defaults to four at a time and handles empty input', async () => {
		let active = 0;
		let peak = 0;
		await mapWithConcurrency(
			Array.from({ length: 10 }, (_, i) => i),
			undefined,
			async () => {
				active++;
				peak = Math.max(peak, active);
				await new Promise((resolve) => setTimeout(resolve, 1));
				active--;
			},
		);
		expect(peak).toBe(4);
		expect(await mapWithConcurrency([], 4, async () => 1)).toEqual([]);
	});
});
