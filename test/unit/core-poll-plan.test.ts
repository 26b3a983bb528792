import {
	estimateCompletion,
	planNextPoll,
	startPollPlan,
	type PollDecision,
	type PollSighting,
} from '../../core/poll-plan';

type Sight = Omit<PollSighting, 'at'>;

/**
 * Drives the planner on a fake clock: `job(t)` says what a poll at ms `t` sees, or null once
 * the job is complete. Returns every wait asked for and why.
 */
function run(job: (t: number) => Sight | null, maxPolls = 40) {
	let plan = startPollPlan();
	let t = 0;
	const waits: number[] = [];
	const reasons: PollDecision['reason'][] = [];
	for (let i = 0; i < maxPolls; i++) {
		const seen = job(t);
		if (seen === null) return { waits, reasons, seenAt: t, requests: i + 1 };
		const next = planNextPoll(plan, { ...seen, at: t });
		plan = next.plan;
		waits.push(next.delayMs);
		reasons.push(next.reason);
		t += next.delayMs;
	}
	throw new Error('the job never completed');
}

/** A job that runs from `startMs` for `runMs`, reporting progress in `steps` equal steps. */
function emulatedJob(startMs: number, runMs: number, steps: number, retryAfterMs?: number) {
	return (t: number): Sight | null => {
		if (t >= startMs + runMs) return null;
		if (t < startMs) return { status: 'queued', retryAfterMs };
		const progress = Math.floor(((t - startMs) / runMs) * steps) / steps;
		return { status: 'running', progress, retryAfterMs };
	};
}

describe('polling plan', () => {
	it('running without hint or progress: 0.5 s doubling to a 15 s ceiling', () => {
		const { waits, reasons } = run((t) => (t < 60_300 ? { status: 'running' } : null));
		expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
		expect(new Set(reasons)).toEqual(new Set(['schedule']));
	});

	it('queued: each wait is at most 30 % of the time since the first poll, at least 0.5 s', () => {
		const { waits, reasons } = run((t) => (t < 20_000 ? { status: 'queued' } : null));
		expect(waits).toEqual([500, 500, 500, 500, 600, 780, 1014, 1318, 1714, 2228, 2896, 3765, 4895]);
		expect(new Set(reasons)).toEqual(new Set(['schedule']));
		// A long queue reaches the ceiling and stays there.
		const long = run((t) => (t < 120_000 ? { status: 'queued' } : null), 60);
		expect(Math.max(...long.waits)).toBe(15_000);
	});

	it('entering the running phase restarts the schedule from its first interval', () => {
		const job = emulatedJob(5_000, 60_000, 5);
		const { waits } = run(job);
		const firstRunning = [0, ...waits]
			.reduce<number[]>((at, w) => [...at, (at.at(-1) ?? 0) + w], [])
			.findIndex((t) => t >= 5_000);
		expect(waits.slice(firstRunning, firstRunning + 3)).toEqual([500, 1000, 2000]);
	});

	it("the benchmark's short jobs (1 s after 0.2-10.2 s queued, Retry-After: 1) are seen within 2 s", () => {
		// The old pure doubling (0, 1, 2, 4, 8, 16 s) saw some of these up to 7.9 s late.
		const late = Array.from({ length: 40 }, (_v, i) => {
			const queueMs = Math.round(200 + (10_000 * (i + 0.5)) / 40);
			return run(emulatedJob(queueMs, 1000, 5, 1000)).seenAt - (queueMs + 1000);
		});
		expect(Math.max(...late)).toBeLessThan(2000);
		expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
	});

	it('a 60 s job with Retry-After: 1 and no progress costs 9 requests, not 61', () => {
		const result = run((t) => (t < 60_300 ? { status: 'running', retryAfterMs: 1000 } : null));
		expect(result.waits).toEqual([1000, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
		expect(result.reasons.slice(0, 2)).toEqual(['retry-after', 'schedule']);
		expect(result.requests).toBe(9);
	});

	it('never polls sooner than Retry-After, even past our ceiling or an estimate', () => {
		const slow = run((t) => (t < 50_000 ? { status: 'queued', retryAfterMs: 20_000 } : null));
		expect(slow.waits).toEqual([20_000, 20_000, 20_000]);
		expect(new Set(slow.reasons)).toEqual(new Set(['retry-after']));
		// Progress says "done in 10 s", the second answer says "come back in 12 s": 12 s it is.
		const job = emulatedJob(0, 10_000, 1000);
		const hinted = run((t) => {
			const seen = job(t);
			return seen && t > 0 ? { ...seen, retryAfterMs: 12_000 } : seen;
		});
		expect(hinted.waits).toEqual([500, 12_000]);
		expect(hinted.reasons).toEqual(['schedule', 'retry-after']);
	});

	it('polls just after the completion estimated from progress', () => {
		// Linear progress over 10 s: one sample to start, one to get the rate, then the wait
		// ends 5 % + 250 ms after the estimated end (10 s): 3 requests in all.
		const { waits, reasons, seenAt, requests } = run(emulatedJob(0, 10_000, 1000));
		expect(waits).toEqual([500, 10_225]);
		expect(reasons).toEqual(['schedule', 'estimate']);
		expect(seenAt).toBe(10_725);
		expect(requests).toBe(3);
	});

	it('an estimate further than the ceiling waits the ceiling, then aims at the end', () => {
		// Linear progress over 50 s: at 45.5 s it reads 0.91, so the end is 4.5 s ahead.
		const { waits, reasons, seenAt } = run(emulatedJob(0, 50_000, 1000));
		expect(waits).toEqual([500, 15_000, 15_000, 15_000, 4975]);
		expect(reasons).toEqual(['schedule', 'estimate', 'estimate', 'estimate', 'estimate']);
		expect(seenAt).toBe(50_475);
	});

	it('an estimate that passes without completion falls back to short, growing waits', () => {
		// The job reports 5 % after 0.5 s, then stalls until 30 s.
		const stalled = (t: number): Sight | null => {
			if (t >= 30_000) return null;
			return { status: 'running', progress: t === 0 ? 0 : 0.05 };
		};
		const { waits, reasons } = run(stalled);
		expect(waits).toEqual([500, 10_225, 500, 1000, 2000, 4000, 8000, 15_000]);
		expect(reasons).toEqual([
			'schedule',
			'estimate',
			'schedule',
			'schedule',
			'schedule',
			'schedule',
			'schedule',
			'schedule',
		]);
	});

	it('a new progress value after a missed estimate gives a new estimate', () => {
		const job = (t: number): Sight | null => {
			if (t >= 12_000) return null;
			if (t === 0) return { status: 'running', progress: 0 };
			return { status: 'running', progress: t < 11_000 ? 0.05 : 0.95 };
		};
		const { waits, reasons } = run(job);
		// Missed at 10.725 s (0.5 s wait), then 95 % at 11.225 s: the end is estimated 591 ms
		// ahead, so the next wait is 591 ms + 5 % + 250 ms.
		expect(waits.slice(0, 4)).toEqual([500, 10_225, 500, 870]);
		expect(reasons.slice(0, 4)).toEqual(['schedule', 'estimate', 'schedule', 'estimate']);
	});

	it('keeps the first sighting of a progress value, so re-reading it does not move the estimate', () => {
		let plan = startPollPlan();
		plan = planNextPoll(plan, { at: 0, status: 'running', progress: 0 }).plan;
		plan = planNextPoll(plan, { at: 1000, status: 'running', progress: 0.5 }).plan;
		const again = planNextPoll(plan, { at: 1500, status: 'running', progress: 0.5 });
		expect(again.plan.latest).toEqual({ at: 1000, progress: 0.5 });
		// Estimated end at 2 s, 0.5 s ahead: wait 0.5 s + 5 % + 250 ms. Counting the second
		// sighting of 0.5 would have moved the end to 3 s.
		expect(again.delayMs).toBe(775);
	});

	it('forgets progress when the job leaves the running phase or restarts', () => {
		let plan = startPollPlan();
		plan = planNextPoll(plan, { at: 0, status: 'running', progress: 0.2 }).plan;
		plan = planNextPoll(plan, { at: 1000, status: 'running', progress: 0.4 }).plan;
		const restarted = planNextPoll(plan, { at: 2000, status: 'running', progress: 0.1 });
		expect(restarted.plan.first).toEqual({ at: 2000, progress: 0.1 });
		expect(restarted.reason).toBe('schedule');
		const requeued = planNextPoll(plan, { at: 2000, status: 'queued' });
		expect(requeued.plan.first).toBeUndefined();
	});

	it('the emulated 60 s job (5 progress steps, Retry-After: 1) costs at most 10 requests', () => {
		// The benchmark's job: 0.3 s in the queue, 60 s running, progress in fifths.
		const result = run(emulatedJob(300, 60_000, 5, 1000));
		expect(result.requests).toBe(10);
		expect(result.seenAt - 60_300).toBeLessThan(2000);
	});
});

describe('completion estimate', () => {
	it('extrapolates the progress rate between the first and latest samples', () => {
		expect(estimateCompletion({ at: 1000, progress: 0.1 }, { at: 3000, progress: 0.5 })).toBe(5500);
	});

	it('gives none without a measurable rate', () => {
		expect(estimateCompletion(undefined, { at: 1, progress: 0.5 })).toBeUndefined();
		expect(
			estimateCompletion({ at: 1000, progress: 0.5 }, { at: 1000, progress: 0.5 }),
		).toBeUndefined();
		expect(
			estimateCompletion({ at: 1000, progress: 0.5 }, { at: 5000, progress: 0.5 }),
		).toBeUndefined();
	});
});
