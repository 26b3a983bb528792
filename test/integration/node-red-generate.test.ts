/**
 * render-generate in Node-RED 4 (node-red-node-test-helper) against the emulator over HTTP.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '../../emulator';
import {
	catchNodes,
	configNode,
	generateNode,
	helper,
	load,
	messages,
	nextMessage,
	recordStatuses,
	sleep,
	startEmulator,
	textOf,
	until,
} from '../helpers/node-red-harness';
import type { Flow, Msg } from '../helpers/node-red-harness';

jest.setTimeout(30_000);

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
	emulator = await startEmulator();
	dir = await mkdtemp(join(tmpdir(), 'nr-generate-'));
});
afterAll(async () => {
	await emulator.close();
	await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
	await helper.unload();
	emulator.setFaults({});
	emulator.setTiming({ queueMs: 50, runMs: 300 });
});

function generateFlow(props: Record<string, unknown> = {}): Flow {
	return [
		configNode(emulator),
		generateNode(props),
		{ id: 'out', type: 'helper' },
		...catchNodes(),
	];
}

function expectResult(msg: Msg): void {
	const jobId = msg.jobId as string;
	const expected = emulator.expectedResult(jobId);
	expect(expected).toBeDefined();
	expect(Buffer.isBuffer(msg.payload)).toBe(true);
	expect((msg.payload as Buffer).equals(expected!.data)).toBe(true);
	expect(msg.contentType).toBe(expected!.mimeType);
}

describe.each(['auto', 'sse', 'poll'] as const)('wait mode %s', (waitMode) => {
	it('outputs the file as a Buffer with the job, content type and file name', async () => {
		await load(generateFlow({ waitMode }), emulator.apiKey);
		const before = emulator.counters();
		const output = nextMessage('out');
		helper.getNode('gen').receive({ payload: 'a lighthouse at dawn', topic: 't1' });
		const msg = await output;
		expectResult(msg);
		expect(msg.topic).toBe('t1');
		expect(msg.filename).toBe(`${msg.jobId}.png`);
		const job = msg.job as Record<string, unknown>;
		expect(job).toMatchObject({ jobId: msg.jobId, status: 'complete' });
		expect(job.request).toMatchObject({
			family: 'flux',
			model: 'schnell',
			format: '512',
			prompt: 'a lighthouse at dawn',
		});
		const after = emulator.counters();
		if (waitMode === 'poll') {
			expect(job.via).toBe('poll');
			expect(after.sseConnections).toBe(before.sseConnections);
		} else {
			expect(job.via).toBe('sse');
			expect(after.sseConnections).toBeGreaterThan(before.sseConnections);
		}
		expect(textOf(msg)).not.toContain(emulator.apiKey);
	});
});

it('shows queued, running and done, then clears the status', async () => {
	emulator.setTiming({ queueMs: 200, runMs: 800 });
	await load(generateFlow(), emulator.apiKey);
	const statuses = recordStatuses('gen');
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 'status please' });
	await output;
	await until(() => statuses.some((s) => s.fill === 'green'), 5000, 'done status');
	const queued = statuses.find((s) => s.shape === 'ring' && s.fill === 'blue');
	expect(queued?.text).toMatch(/^queued( #\d+)?$/);
	const running = statuses.filter(
		(s) => s.fill === 'blue' && s.shape === 'dot' && /^running/.test(s.text ?? ''),
	);
	expect(running.length).toBeGreaterThan(0);
	expect(running.some((s) => /^running \d+%$/.test(s.text ?? ''))).toBe(true);
	expect(statuses.at(-1)).toEqual({ fill: 'green', shape: 'dot', text: 'done' });
	const order = ['queued', 'running', 'done'].map((word) =>
		statuses.findIndex((s) => s.text?.startsWith(word)),
	);
	expect(order).toEqual([...order].sort((a, b) => a - b));
	await until(() => Object.keys(statuses.at(-1) ?? {}).length === 0, 6000, 'status cleared');
	expect(textOf(statuses)).not.toContain(emulator.apiKey);
});

it('takes every setting from the message when given', async () => {
	await load(generateFlow({ prompt: 'editor prompt' }), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({
		payload: 'ignored, msg.prompt wins',
		prompt: 'a red fox',
		family: 'sdxl',
		model: 'base',
		format: '1024',
		steps: 12,
		guidance: '4.5',
		seed: 7,
	});
	const msg = await output;
	expectResult(msg);
	const job = emulator.jobs().find((j) => j.id === msg.jobId);
	expect(job?.request).toMatchObject({
		family: 'sdxl',
		model: 'base',
		format: '1024',
		prompt: 'a red fox',
		steps: 12,
		guidance: 4.5,
		seed: 7,
		task: 't2i',
		modality: 'image',
	});
});

it('uses the prompt set in the node when the message carries no text', async () => {
	await load(generateFlow({ prompt: 'editor prompt' }), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 1234567 });
	const msg = await output;
	expect(emulator.jobs().find((j) => j.id === msg.jobId)?.request.prompt).toBe('editor prompt');
});

it('sends msg.image for i2i as a data URL', async () => {
	const png = emulator.expectedResult(await firstJobId())!.data;
	await load(generateFlow({ family: 'flux', model: 'kontext', format: '' }), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ prompt: 'make it blue', image: png });
	const msg = await output;
	expectResult(msg);
	const request = emulator.jobs().find((j) => j.id === msg.jobId)!.request;
	expect(request.task).toBe('i2i');
	expect(request.image).toBe(`data:image/png;base64,${png.toString('base64')}`);
});

async function firstJobId(): Promise<string> {
	const done = emulator.jobs().find((j) => j.status === 'complete');
	if (done) return done.id;
	await load(generateFlow(), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 'seed image' });
	const msg = await output;
	await helper.unload();
	return msg.jobId as string;
}

it('streams the result to a file in a folder and outputs the path', async () => {
	const folder = join(dir, 'renders') + '/';
	await load(generateFlow({ output: 'file', outputFile: folder }), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 'to disk' });
	const msg = await output;
	const path = join(folder, `${msg.jobId}.png`);
	expect(msg.payload).toBe(path);
	expect(msg.filename).toBe(path);
	const written = await readFile(path);
	expect(written.equals(emulator.expectedResult(msg.jobId as string)!.data)).toBe(true);
	expect(msg.size).toBe(written.length);
});

it('writes to msg.outputFile when given', async () => {
	const path = join(dir, 'nested', 'exact.png');
	await load(generateFlow(), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 'exact path', outputFile: path });
	const msg = await output;
	expect(msg.payload).toBe(path);
	expect((await readFile(path)).equals(emulator.expectedResult(msg.jobId as string)!.data)).toBe(
		true,
	);
});

it('emits the job ID at once, and render-job delivers the file', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 600 });
	const flow = generateFlow({ mode: 'emit', wires: [['out', 'job']] });
	flow.push({
		id: 'job',
		type: 'render-job',
		config: 'cfg',
		waitMode: 'auto',
		timeout: 20,
		wires: [['done']],
	});
	flow.push({ id: 'done', type: 'helper' });
	await load(flow, emulator.apiKey);
	const emitted = nextMessage('out');
	const completed = nextMessage('done');
	helper.getNode('gen').receive({ payload: 'emit me' });
	const first = await emitted;
	expect(typeof first.jobId).toBe('string');
	expect(first.payload).toBe(first.jobId);
	expect(emulator.jobs().find((j) => j.id === first.jobId)?.status).not.toBe('complete');
	const second = await completed;
	expect(second.jobId).toBe(first.jobId);
	expectResult(second);
});

it('returns the job ID on timeout when set to', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 5000 });
	await load(generateFlow({ timeout: 0.4, onTimeout: 'return' }), emulator.apiKey);
	const output = nextMessage('out');
	helper.getNode('gen').receive({ payload: 'slow one' });
	const msg = await output;
	expect(msg.payload).toBe(msg.jobId);
	expect(msg.job).toMatchObject({ jobId: msg.jobId, timedOut: true });
});

describe('errors reach a Catch node', () => {
	it('a failed job, with the job ID and a red status', async () => {
		await load(generateFlow(), emulator.apiKey);
		const statuses = recordStatuses('gen');
		const caught = nextMessage('caught');
		helper.getNode('gen').receive({ payload: 'please [fail]' });
		const msg = await caught;
		const error = msg.error as { message: string };
		expect(typeof msg.jobId).toBe('string');
		expect(error.message).toContain(msg.jobId as string);
		expect(statuses.at(-1)).toMatchObject({ fill: 'red', shape: 'ring', text: 'job failed' });
	});

	it('a wrong API key, never showing the key', async () => {
		const wrongKey = 'rs_wrong_key_that_must_not_leak_42';
		await load(generateFlow(), wrongKey);
		const statuses = recordStatuses('gen');
		const caught = nextMessage('caught');
		helper.getNode('gen').receive({ payload: 'anything' });
		const msg = await caught;
		expect((msg.error as { message: string }).message).toMatch(/key|unauthori[sz]ed/i);
		expect(statuses.at(-1)).toMatchObject({ fill: 'red', shape: 'ring', text: 'unauthorized' });
		for (const text of [textOf(msg), textOf(statuses)]) expect(text).not.toContain(wrongKey);
	});

	it('a missing prompt, before any job is sent', async () => {
		await load(generateFlow(), emulator.apiKey);
		const created = emulator.counters().jobsCreated;
		const caught = nextMessage('caught');
		helper.getNode('gen').receive({ payload: { not: 'text' }, jobId: 'from-upstream' });
		const msg = await caught;
		expect((msg.error as { message: string }).message).toMatch(/prompt/i);
		expect((msg.error as { message: string }).message).not.toContain('from-upstream');
		expect(msg.jobId).toBeUndefined();
		expect(emulator.counters().jobsCreated).toBe(created);
	});

	it('a timeout set to cancel cancels the job, then fails', async () => {
		emulator.setTiming({ queueMs: 50, runMs: 5000 });
		await load(generateFlow({ timeout: 0.4, onTimeout: 'cancel' }), emulator.apiKey);
		const cancelled = emulator.counters().jobsCancelled;
		const caught = nextMessage('caught');
		helper.getNode('gen').receive({ payload: 'cancel me' });
		const msg = await caught;
		expect((msg.error as { message: string }).message).toMatch(/cancelled/);
		expect((msg.error as { message: string }).message).toContain(msg.jobId as string);
		expect(emulator.counters().jobsCancelled).toBe(cancelled + 1);
		expect(emulator.jobs().find((j) => j.id === msg.jobId)?.status).toBe('cancelled');
	});

	it('a timeout set to fail names the job', async () => {
		emulator.setTiming({ queueMs: 50, runMs: 5000 });
		await load(generateFlow({ timeout: 0.4 }), emulator.apiKey);
		const caught = nextMessage('caught');
		helper.getNode('gen').receive({ payload: 'too slow' });
		const msg = await caught;
		expect((msg.error as { message: string }).message).toContain(msg.jobId as string);
	});
});

it('closing aborts the wait: no more requests, no message', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 60_000 });
	await load(generateFlow({ waitMode: 'poll' }), emulator.apiKey);
	const out = helper.getNode('out');
	const received: Msg[] = [];
	out.on('input', (m: Msg) => received.push(m));
	helper.getNode('gen').receive({ payload: 'never finishes' });
	await until(() => emulator.counters().requests.job >= 1, 5000, 'first poll');
	await helper.unload();
	const after = emulator.counters().requests;
	await sleep(1500);
	expect(emulator.counters().requests).toEqual(after);
	expect(received).toHaveLength(0);
	// helper.unload() in afterEach needs a loaded flow
	await load(generateFlow(), emulator.apiKey);
});

it('works on several messages at once, up to the node limit', async () => {
	emulator.setTiming({ queueMs: 50, runMs: 700 });
	await load(generateFlow({ concurrency: 2 }), emulator.apiKey);
	const statuses = recordStatuses('gen');
	const created = emulator.counters().jobsCreated;
	const outputs = messages('out', 3, 20_000);
	for (const n of [1, 2, 3]) helper.getNode('gen').receive({ payload: `job ${n}` });
	await until(() => emulator.counters().jobsCreated - created >= 2, 5000, 'two jobs');
	await sleep(200);
	expect(emulator.counters().jobsCreated - created).toBe(2);
	expect(statuses.some((s) => s.fill === 'grey' && /^waiting/.test(s.text ?? ''))).toBe(true);
	const msgs = await outputs;
	expect(new Set(msgs.map((m) => m.jobId)).size).toBe(3);
	for (const msg of msgs) expectResult(msg);
});

it('never shows the API key in a message, status, error or log line', async () => {
	const flow = generateFlow({ wires: [['out', 'job']] });
	flow.push({ id: 'job', type: 'render-job', config: 'cfg', wires: [['done']] });
	flow.push({ id: 'done', type: 'helper' });
	await load(flow, emulator.apiKey);
	const seen: unknown[] = [];
	for (const id of ['out', 'done', 'caught'])
		helper.getNode(id).on('input', (m: Msg) => seen.push(m));
	const genStatuses = recordStatuses('gen');
	const jobStatuses = recordStatuses('job');
	const gen = helper.getNode('gen');
	const outputs = messages('out', 2);
	gen.receive({ payload: 'fine' });
	gen.receive({ payload: 'deprecated model', family: 'sdxl', model: 'turbo' });
	await outputs;
	const caught = messages('caught', 2);
	gen.receive({ payload: 'bad [fail]' });
	helper.getNode('job').receive({ jobId: 'no-such-job' });
	await caught;
	await until(() => seen.length >= 6, 10_000, 'render-job outputs');
	const logged = helper.log().args.map((args: unknown[]) => args[0]);
	expect(logged.length).toBeGreaterThan(0);
	expect(seen.length).toBeGreaterThanOrEqual(6);
	const statuses = [...genStatuses, ...jobStatuses];
	expect(statuses.length).toBeGreaterThan(4);
	for (const text of [textOf(seen), textOf(statuses), textOf(logged)]) {
		expect(text).not.toContain(emulator.apiKey);
	}
	expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
});
