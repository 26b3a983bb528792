/**
 * render-job: waits for a job by ID, and resumes pending jobs after a redeploy and, with a
 * persistent (file) context store, after a restart.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '../../emulator';
import { createClient } from '../../node-red/lib/connection';
import { forgetInProcessPending, PENDING_KEY } from '../../node-red/lib/pending';
import {
	catchNodes,
	configNode,
	helper,
	load,
	nextMessage,
	onTab,
	sleep,
	startEmulator,
	stopKeepingContext,
	until,
} from '../helpers/node-red-harness';
import type { Flow, Msg } from '../helpers/node-red-harness';
import { request } from './core-harness';

jest.setTimeout(30_000);

let emulator: RunningEmulator;

beforeAll(async () => {
	emulator = await startEmulator();
});
afterAll(() => emulator.close());
afterEach(async () => {
	await helper.unload();
	helper.settings({});
	emulator.setTiming({ queueMs: 50, runMs: 300 });
});

function jobFlow(props: Record<string, unknown> = {}): Flow {
	return [
		configNode(emulator),
		{
			id: 'job',
			type: 'render-job',
			config: 'cfg',
			waitMode: 'poll',
			timeout: 20,
			onTimeout: 'fail',
			wires: [['out']],
			...props,
		},
		{ id: 'out', type: 'helper' },
		...catchNodes(),
	];
}

async function submitJob(prompt = 'a job to collect'): Promise<string> {
	const client = createClient({
		baseUrl: emulator.baseUrl,
		asyncUrl: emulator.asyncUrl,
		apiKey: emulator.apiKey,
	});
	const job = await client.submit(request({ prompt }));
	return job.jobId;
}

function expectFile(msg: Msg, jobId: string): void {
	expect(msg.jobId).toBe(jobId);
	const expected = emulator.expectedResult(jobId)!;
	expect((msg.payload as Buffer).equals(expected.data)).toBe(true);
	expect(msg.contentType).toBe(expected.mimeType);
	expect(msg.job).toMatchObject({ jobId, status: 'complete' });
}

function pendingIn(nodeId: string): Promise<Record<string, unknown> | undefined> {
	return new Promise((resolve, reject) => {
		const ctx = (
			helper.getNode(nodeId) as unknown as {
				context(): { get(k: string, cb: (e: Error | null, v: unknown) => void): void };
			}
		).context();
		ctx.get(PENDING_KEY, (err, value) =>
			err ? reject(err) : resolve(value as Record<string, unknown> | undefined),
		);
	});
}

it('outputs the file of the job named in msg.jobId or msg.payload', async () => {
	await load(jobFlow({ waitMode: 'auto' }), emulator.apiKey);
	const first = await submitJob();
	const output = nextMessage('out');
	helper.getNode('job').receive({ jobId: first });
	expectFile(await output, first);
	const second = await submitJob();
	const again = nextMessage('out');
	helper.getNode('job').receive({ payload: second });
	expectFile(await again, second);
	expect(await pendingIn('job')).toBeUndefined();
});

it('writes to a file when set to', async () => {
	const dir = await mkdtemp(join(tmpdir(), 'nr-job-'));
	try {
		await load(jobFlow({ output: 'file', outputFile: dir }), emulator.apiKey);
		const jobId = await submitJob();
		const output = nextMessage('out');
		helper.getNode('job').receive({ jobId });
		const msg = await output;
		expect(msg.payload).toBe(join(dir, `${jobId}.png`));
		expect(
			(await readFile(msg.payload as string)).equals(emulator.expectedResult(jobId)!.data),
		).toBe(true);
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
});

it('outputs the job ID when the wait times out and is set to return', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 5000 });
	await load(jobFlow({ timeout: 0.3, onTimeout: 'return' }), emulator.apiKey);
	const jobId = await submitJob();
	const output = nextMessage('out');
	helper.getNode('job').receive({ payload: jobId });
	const msg = await output;
	expect(msg.payload).toBe(jobId);
	expect(msg.job).toMatchObject({ jobId, timedOut: true, cancelled: false });
	expect(await pendingIn('job')).toBeUndefined();
});

it('sends a message without a job ID to Catch', async () => {
	await load(jobFlow(), emulator.apiKey);
	const caught = nextMessage('caught');
	helper.getNode('job').receive({ payload: 42 });
	expect(((await caught).error as { message: string }).message).toMatch(/job ID/);
});

it('sends an unknown job to Catch with its ID', async () => {
	await load(jobFlow(), emulator.apiKey);
	const caught = nextMessage('caught');
	helper.getNode('job').receive({ jobId: 'job_does_not_exist' });
	const msg = await caught;
	expect(msg.jobId).toBe('job_does_not_exist');
	expect((msg.error as { message: string }).message).toContain('job_does_not_exist');
	expect(await pendingIn('job')).toBeUndefined();
});

it('resumes a pending job after a redeploy, even without a configured context store', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 1500 });
	const flow = jobFlow();
	await load(flow, emulator.apiKey);
	const jobId = await submitJob();
	const polls = emulator.counters().requests.job;
	helper.getNode('job').receive({ jobId, topic: 'keep me' });
	await until(() => emulator.counters().requests.job > polls, 5000, 'first poll');
	expect(Object.keys((await pendingIn('job')) ?? {})).toEqual([jobId]);
	const changed = onTab(flow).map((n) => (n.id === 'job' ? { ...n, name: 'renamed' } : n));
	await helper.setFlows(changed, 'nodes', { cfg: { apiKey: emulator.apiKey } });
	const msg = await nextMessage('out');
	expectFile(msg, jobId);
	expect(msg.resumed).toBe(true);
	expect(msg.topic).toBe('keep me');
	expect(await pendingIn('job')).toBeUndefined();
});

it('keeps a job pending through a rejected key, and collects it once the key is fixed', async () => {
	const flow = onTab(jobFlow());
	await load(flow, 'rs_wrong_key_for_this_test');
	const jobId = await submitJob();
	const caught = nextMessage('caught');
	helper.getNode('job').receive({ jobId });
	expect(((await caught).error as { message: string }).message).toMatch(/key|unauthori[sz]ed/i);
	expect(Object.keys((await pendingIn('job')) ?? {})).toEqual([jobId]);
	// Redeploy with the right key: the node starts again and resumes the wait.
	await helper.setFlows(flow, 'full', { cfg: { apiKey: emulator.apiKey } });
	const msg = await nextMessage('out');
	expectFile(msg, jobId);
	expect(msg.resumed).toBe(true);
});

it('forgets pending jobs when the node is deleted', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 1500 });
	const flow = onTab(jobFlow());
	await load(flow, emulator.apiKey);
	const jobId = await submitJob();
	const polls = emulator.counters().requests.job;
	helper.getNode('job').receive({ jobId });
	await until(() => emulator.counters().requests.job > polls, 5000, 'first poll');
	const credentials = { cfg: { apiKey: emulator.apiKey } };
	await helper.setFlows(
		flow.filter((n) => n.id !== 'job'),
		'full',
		credentials,
	);
	await helper.setFlows(flow, 'full', credentials);
	const received: Msg[] = [];
	helper.getNode('out').on('input', (m: Msg) => received.push(m));
	await sleep(2000);
	expect(emulator.jobs().find((j) => j.id === jobId)?.status).toBe('complete');
	expect(received).toHaveLength(0);
	expect(await pendingIn('job')).toBeUndefined();
});

describe('with a file context store', () => {
	let storeDir: string;
	beforeEach(async () => {
		storeDir = await mkdtemp(join(tmpdir(), 'nr-context-'));
		dirs.push(storeDir);
		helper.settings({
			contextStorage: {
				default: { module: 'localfilesystem', config: { dir: storeDir, cache: false } },
			},
		});
	});
	const dirs: string[] = [];
	afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

	const withStore = { before: () => helper._context.load() };

	it('resumes a pending job after a restart', async () => {
		emulator.setTiming({ queueMs: 50, runMs: 2000 });
		await load(jobFlow(), emulator.apiKey, withStore);
		const jobId = await submitJob();
		const received: Msg[] = [];
		helper.getNode('out').on('input', (m: Msg) => received.push(m));
		const before = emulator.counters().requests.job;
		helper.getNode('job').receive({ jobId });
		await until(() => emulator.counters().requests.job > before, 5000, 'first poll');
		// Stop Node-RED: flows stop, the store closes; nothing may be sent meanwhile.
		await stopKeepingContext();
		const polls = emulator.counters().requests.job;
		await sleep(300);
		expect(emulator.counters().requests.job).toBe(polls);
		expect(received).toHaveLength(0);
		// Only the file store remembers the job now, as after a real restart.
		forgetInProcessPending();
		const stored = execFileSync('grep', ['-rl', jobId, storeDir], { encoding: 'utf8' });
		expect(stored).toContain('job');

		await load(jobFlow(), emulator.apiKey, withStore);
		const msg = await nextMessage('out');
		expectFile(msg, jobId);
		expect(msg.resumed).toBe(true);
		expect(await pendingIn('job')).toBeUndefined();
	});
});
