/** The status badge and the per-node message limit, with a fake node and fake timers. */
import { EventEmitter } from 'node:events';
import { translator } from '../../node-red/lib/i18n';
import { Limiter } from '../../node-red/lib/limiter';
import type { NodeStatus, RedNode } from '../../node-red/lib/red';
import { DONE_CLEAR_MS, StatusBoard } from '../../node-red/lib/status';
import { reportError } from '../../node-red/lib/errors';
import { JobFailedError, UnauthorizedError } from '../../core/errors';

const t = translator({ _: (key: string) => key });

function fakeNode(): { node: RedNode; shown: NodeStatus[] } {
	const shown: NodeStatus[] = [];
	const node = Object.assign(new EventEmitter(), {
		status: (s: NodeStatus) => shown.push(s),
	}) as unknown as RedNode;
	return { node, shown };
}

describe('StatusBoard', () => {
	afterEach(() => jest.useRealTimers());

	it('shows queued #n, running n%, done, then clears', () => {
		jest.useFakeTimers();
		const { node, shown } = fakeNode();
		const board = new StatusBoard(node, t, 'render-generate');
		const key = board.open();
		board.progress(key, { status: 'queued', queuePosition: 3 });
		board.progress(key, { status: 'running', progress: 0.42 });
		board.done(key);
		expect(shown).toEqual([
			{ fill: 'blue', shape: 'ring', text: 'queued #3' },
			{ fill: 'blue', shape: 'dot', text: 'running 42%' },
			{ fill: 'green', shape: 'dot', text: 'done' },
		]);
		jest.advanceTimersByTime(DONE_CLEAR_MS);
		expect(shown.at(-1)).toEqual({});
	});

	it('counts the other messages in flight and keeps a red ring', () => {
		jest.useFakeTimers();
		const { node, shown } = fakeNode();
		const board = new StatusBoard(node, t, 'render-job');
		const a = board.open();
		const b = board.open();
		board.progress(a, { status: 'running' });
		board.progress(b, { status: 'queued' });
		expect(shown.at(-1)).toEqual({ fill: 'blue', shape: 'ring', text: 'queued (+1)' });
		board.failed(b, 'job failed');
		expect(shown.at(-1)).toEqual({ fill: 'red', shape: 'ring', text: 'job failed (+1)' });
		board.done(a);
		jest.advanceTimersByTime(DONE_CLEAR_MS);
		expect(shown.at(-1)).toEqual({});
	});
});

describe('Limiter', () => {
	it('runs at most `limit` tasks, the rest in arrival order', async () => {
		const limiter = new Limiter(2);
		const started: number[] = [];
		const releases: Array<() => void> = [];
		const tasks = [1, 2, 3, 4].map((n) =>
			limiter.run(
				() =>
					new Promise<void>((resolve) => {
						started.push(n);
						releases.push(resolve);
					}),
			),
		);
		await Promise.resolve();
		expect(started).toEqual([1, 2]);
		expect(limiter.queued).toBe(2);
		releases[0]!();
		await new Promise((r) => setImmediate(r));
		expect(started).toEqual([1, 2, 3]);
		releases.slice(1).forEach((r) => r());
		await new Promise((r) => setImmediate(r));
		releases.forEach((r) => r());
		await Promise.all(tasks);
		expect(started).toEqual([1, 2, 3, 4]);
	});

	it('abortAll aborts running tasks and rejects waiting ones', async () => {
		const limiter = new Limiter(1);
		const running = limiter.run(
			(signal) =>
				new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
		);
		const waiting = limiter.run(async () => 'never');
		limiter.abortAll();
		await expect(running).rejects.toThrow(/closed/);
		await expect(waiting).rejects.toThrow(/closed/);
		await expect(limiter.run(async () => 1)).rejects.toThrow(/closed/);
	});
});

describe('reportError', () => {
	it('adds the job ID and hint, names a short reason, and scrubs the key', () => {
		const key = 'rs_secret_key_0000';
		const failed = reportError(
			new JobFailedError(`Job failed for ${key}`, { jobId: 'job-1', hint: 'Change the prompt.' }),
			t,
			'render-generate',
			[key],
		);
		expect(failed.error.message).toBe('Job failed for [redacted] Change the prompt. (job job-1)');
		expect(failed.reason).toBe('job failed');
		expect(failed.jobId).toBe('job-1');
		const auth = reportError(
			new UnauthorizedError('The API key was rejected.'),
			t,
			'render-models',
			[key],
		);
		expect(auth.reason).toBe('unauthorized');
	});
});
