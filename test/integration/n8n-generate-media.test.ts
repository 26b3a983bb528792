import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeExecutionData } from 'n8n-workflow';

import { createEmulator } from '../../emulator';
import type { RunningEmulator } from '../../emulator/types';
import { chain, node, useFilesystemBinaryData } from '../helpers/n8n-engine';
import {
	binaryBytes,
	createRenderEngine,
	generateParams,
	prompts,
	renderNode,
	TYPES,
} from '../helpers/n8n-render';
import { tempN8nUserFolder } from '../helpers/n8n-user-folder';

jest.setTimeout(60_000);

describe('n8n Generate Media in the real engine', () => {
	let emulator: RunningEmulator;
	const userFolder = tempN8nUserFolder('n8n-generate-', 'all');

	beforeAll(async () => {
		emulator = await createEmulator({ port: 0, queueMs: 20, runMs: 80, heartbeatMs: 500 });
	});
	afterAll(async () => {
		await emulator.close();
	});
	beforeEach(() => emulator.setTiming({ queueMs: 20, runMs: 80 }));

	async function generate(
		parameters: Record<string, unknown>,
		options: {
			input?: INodeExecutionData[];
			continueOnFail?: boolean;
			apiKey?: string;
			onStarted?: (cancel: () => void) => void;
		} = {},
	) {
		const engine = createRenderEngine(emulator, options.apiKey);
		const result = await engine.run({
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode('Generate', TYPES.generateMedia, generateParams(parameters as never), {
					...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
				}),
			],
			connections: chain('Start', 'Generate'),
			startNode: options.input ? 'Generate' : 'Start',
			input: options.input,
			onStarted: options.onStarted,
		});
		// The key must never reach an output, an error or any other part of the run.
		expect(JSON.stringify(result.run)).not.toContain(options.apiKey ?? emulator.apiKey);
		return result;
	}

	it('waits by SSE and outputs the exact file as binary with its job JSON', async () => {
		const before = emulator.counters();
		const result = await generate({ waitStrategy: 'sse' });
		expect(result.run.data.resultData.error).toBeUndefined();
		const [item] = result.output('Generate');
		const jobId = item?.json.jobId as string;
		const expected = emulator.expectedResult(jobId);
		expect(expected).toBeDefined();
		expect(binaryBytes(item!).equals(expected!.data)).toBe(true);
		expect(item?.binary?.data?.mimeType).toBe(expected!.mimeType);
		expect(item?.json).toMatchObject({
			status: 'complete',
			family: 'flux',
			model: 'schnell',
			format: '512',
			mimeType: expected!.mimeType,
			fileSize: expected!.data.length,
			waitedVia: 'sse',
			warnings: [],
		});
		expect(typeof item?.json.submittedAt).toBe('string');
		expect(typeof item?.json.completedAt).toBe('string');
		expect(typeof item?.json.waitedMs).toBe('number');
		const after = emulator.counters();
		expect(after.sseConnections).toBeGreaterThan(before.sseConnections);
		expect(after.cdnAuthorizationHeaders).toBe(0);
	});

	it('waits by polling when asked and opens no event stream', async () => {
		const before = emulator.counters();
		const result = await generate({ waitStrategy: 'poll' });
		const [item] = result.output('Generate');
		expect(item?.json.waitedVia).toBe('poll');
		expect(
			binaryBytes(item!).equals(emulator.expectedResult(item?.json.jobId as string)!.data),
		).toBe(true);
		expect(emulator.counters().sseConnections).toBe(before.sseConnections);
	});

	it('puts the file in the binary field the user names', async () => {
		const result = await generate({ binaryPropertyName: 'picture' });
		const [item] = result.output('Generate');
		expect(Object.keys(item?.binary ?? {})).toEqual(['picture']);
	});

	it('outputs a download URL instead of the file when asked', async () => {
		const result = await generate({ output: 'url' });
		const [item] = result.output('Generate');
		expect(item?.binary).toBeUndefined();
		expect(String(item?.json.url)).toMatch(new RegExp(`^${emulator.cdnUrl}`));
		const response = await fetch(String(item?.json.url));
		const bytes = Buffer.from(await response.arrayBuffer());
		expect(bytes.equals(emulator.expectedResult(item?.json.jobId as string)!.data)).toBe(true);
	});

	it('Submit Only outputs the job at once and records it in the ledger without the key', async () => {
		emulator.setTiming({ queueMs: 2000, runMs: 2000 });
		const result = await generate({ mode: 'submit' });
		const [item] = result.output('Generate');
		const jobId = item?.json.jobId as string;
		expect(item?.json).toMatchObject({ family: 'flux', model: 'schnell', format: '512' });
		expect(item?.json.status).not.toBe('complete');
		expect(String(item?.json.jobUrl)).toContain(jobId);
		expect(typeof item?.json.idempotencyKey).toBe('string');
		const pendingDir = join(userFolder.path, '.n8n', 'render-service', 'jobs', 'pending');
		const file = readdirSync(pendingDir).find((name) => name.startsWith(jobId));
		expect(file).toBeDefined();
		const text = readFileSync(join(pendingDir, file!), 'utf8');
		expect(JSON.parse(text)).toMatchObject({ jobId, asyncUrl: emulator.asyncUrl });
		expect(text).not.toContain(emulator.apiKey);
	});

	it('Submit Only names the paid job when the ledger cannot be written', async () => {
		const blocker = join(userFolder.path, 'not-a-folder');
		writeFileSync(blocker, 'a file where the ledger folder should be');
		process.env.RENDER_SERVICE_LEDGER_DIR = join(blocker, 'jobs');
		try {
			const before = emulator.counters().jobsCreated;
			const result = await generate({ mode: 'submit' });
			const error = result.nodeError('Generate');
			const job = emulator.jobs().at(-1);
			expect(emulator.counters().jobsCreated).toBe(before + 1);
			expect(String(error?.message)).toContain(`Job ${job?.id} was submitted`);
			expect(String(error?.description)).toMatch(/collect it by its ID/);
		} finally {
			delete process.env.RENDER_SERVICE_LEDGER_DIR;
		}
	});

	it('runs 20 items 4 at a time, keeping order and pairedItem', async () => {
		const result = await generate(
			{ prompt: '={{ $json.prompt }}', options: { concurrency: 4 } },
			{ input: prompts(20) },
		);
		const items = result.output('Generate');
		expect(items).toHaveLength(20);
		const jobs = new Map(emulator.jobs().map((job) => [job.id, job]));
		items.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			const job = jobs.get(item.json.jobId as string);
			expect(job?.request.prompt).toBe(`picture number ${index}`);
			expect(binaryBytes(item).equals(emulator.expectedResult(job!.id)!.data)).toBe(true);
		});
		// At no moment were more than 4 of these jobs submitted and not yet complete.
		const spans = items.map((item) => jobs.get(item.json.jobId as string)!);
		const overlap = (t: number) =>
			spans.filter((job) => job.createdAt <= t && t < (job.completedAt ?? Infinity)).length;
		const most = Math.max(...spans.map((job) => overlap(job.createdAt)));
		expect(most).toBeLessThanOrEqual(4);
		expect(most).toBeGreaterThan(1);
	});

	it('stops with the core’s hint and the item index when a setting does not fit the model', async () => {
		const before = emulator.counters().jobsCreated;
		const input = [
			{ json: { guidance: 3 } },
			{ json: { guidance: 50 } },
			{ json: { guidance: 4 } },
		];
		const result = await generate(
			{ model: 'dev', settings: { guidance: '={{ $json.guidance }}' } as never, prompt: 'x' },
			{ input },
		);
		expect(result.output('Generate')).toEqual([]);
		const error = result.nodeError('Generate');
		expect(error).toBeDefined();
		expect(String(error?.message)).toMatch(/guidance/i);
		// Nothing was submitted: the bad item stopped the node before any job was sent.
		expect(emulator.counters().jobsCreated).toBe(before);
		expect(String(error?.description ?? '')).not.toBe('');
		expect((error?.context as { itemIndex?: number } | undefined)?.itemIndex).toBe(1);
	});

	it('refuses a bad timeout before any item is submitted', async () => {
		const before = emulator.counters().jobsCreated;
		const input = [{ json: { timeout: 30 } }, { json: { timeout: -5 } }];
		const result = await generate({ timeoutSeconds: '={{ $json.timeout }}' } as never, { input });
		const error = result.nodeError('Generate');
		expect(String(error?.message)).toMatch(/timeout must be a positive number/i);
		expect((error?.context as { itemIndex?: number } | undefined)?.itemIndex).toBe(1);
		// The good first item was not submitted either: no paid job hides behind the error.
		expect(emulator.counters().jobsCreated).toBe(before);
	});

	it('validates a model chosen by expression at run time', async () => {
		const result = await generate({ model: '={{ "no-such-model" }}' });
		const error = result.nodeError('Generate');
		expect(String(error?.message)).toMatch(/no-such-model/);
		expect(String(error?.description ?? '')).not.toBe('');
	});

	it('with continueOnFail, a failed job becomes an error item with its job ID', async () => {
		const input = [
			{ json: { prompt: 'fine' } },
			{ json: { prompt: 'bad [fail]' } },
			{ json: { prompt: 'ok' } },
		];
		const result = await generate(
			{ prompt: '={{ $json.prompt }}' },
			{ input, continueOnFail: true },
		);
		const items = result.output('Generate');
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0]?.json.status).toBe('complete');
		expect(items[2]?.json.status).toBe('complete');
		expect(typeof items[1]?.json.error).toBe('string');
		expect(typeof items[1]?.json.jobId).toBe('string');
		expect(emulator.jobs().find((j) => j.id === items[1]?.json.jobId)?.status).toBe('failed');
	});

	it('shows a wrong key as an API error without repeating the key', async () => {
		const wrongKey = 'rs_wrong_key_abcdef123456';
		const result = await generate({}, { apiKey: wrongKey });
		const error = result.nodeError('Generate');
		expect(error?.name).toBe('NodeApiError');
		expect(String(error?.description ?? '')).not.toBe('');
	});

	it('warns about a deprecated model in the output', async () => {
		const result = await generate({ family: 'sdxl', model: 'turbo', format: '512' });
		const [item] = result.output('Generate');
		expect((item?.json.warnings as string[]).join(' ')).toMatch(/deprecated/i);
	});

	it('image to image sends the incoming binary image', async () => {
		const first = await generate({});
		const image = first.output('Generate')[0]!;
		const result = await generate(
			{ family: 'flux', model: 'dev', task: 'i2i', inputImageProperty: 'data' },
			{ input: [{ json: {}, binary: image.binary }] },
		);
		const [item] = result.output('Generate');
		expect(item?.json.status).toBe('complete');
		const job = emulator.jobs().find((j) => j.id === item?.json.jobId);
		expect(job?.request.image).toMatch(/^data:image\/png;base64,/);
		expect(job?.request.task).toBe('i2i');
	});

	describe('when the job outlasts the timeout', () => {
		beforeEach(() => emulator.setTiming({ queueMs: 20, runMs: 60_000 }));

		it('fails with the job ID by default', async () => {
			const result = await generate({ timeoutSeconds: 1, waitStrategy: 'poll' });
			const error = result.nodeError('Generate');
			const job = emulator.jobs().at(-1)!;
			expect(String(error?.message)).toContain(job.id);
		});

		it('can output the job as timed out, leaving it running', async () => {
			const result = await generate({ timeoutSeconds: 1, onTimeout: 'return' });
			const [item] = result.output('Generate');
			expect(item?.json).toMatchObject({ status: 'timed_out', cancelled: false });
			const job = emulator.jobs().find((j) => j.id === item?.json.jobId);
			expect(['queued', 'running']).toContain(job?.status);
		});

		it('can cancel the job', async () => {
			const result = await generate({ timeoutSeconds: 1, onTimeout: 'cancel' });
			const [item] = result.output('Generate');
			expect(item?.json).toMatchObject({ status: 'timed_out', cancelled: true });
			expect(emulator.jobs().find((j) => j.id === item?.json.jobId)?.status).toBe('cancelled');
		});

		it('stops waiting at once when the execution is cancelled', async () => {
			const submitted = emulator.counters().jobsCreated;
			const result = await generate(
				{ timeoutSeconds: 600 },
				{
					onStarted: (cancel) => {
						const check = setInterval(() => {
							if (emulator.counters().jobsCreated > submitted) {
								clearInterval(check);
								setTimeout(cancel, 100);
							}
						}, 10);
					},
				},
			);
			expect(result.run.status).toBe('canceled');
			const job = emulator.jobs().at(-1)!;
			// The run ended while the job was still running: nothing waited for it.
			expect(['queued', 'running']).toContain(job.status);
		});
	});
});

describe('n8n Generate Media with binary data on disk', () => {
	it('streams a large result into n8n’s filesystem binary store, byte for byte', async () => {
		const storage = mkdtempSync(join(tmpdir(), 'n8n-binary-'));
		const binaryData = await useFilesystemBinaryData(storage);
		const emulator = await createEmulator({
			port: 0,
			queueMs: 20,
			runMs: 50,
			resultPadBytes: 3 * 1024 * 1024,
		});
		try {
			const engine = createRenderEngine(emulator);
			const result = await engine.run({
				nodes: [
					node('Start', TYPES.manualTrigger),
					renderNode('Generate', TYPES.generateMedia, generateParams()),
				],
				connections: chain('Start', 'Generate'),
			});
			const [item] = result.output('Generate');
			const binary = item!.binary!.data!;
			// Stored by reference on disk, not as base64 inside the item.
			expect(binary.id).toMatch(/^filesystem/);
			expect(binary.data.length).toBeLessThan(1000);
			const expected = emulator.expectedResult(item!.json.jobId as string)!;
			expect(expected.data.length).toBeGreaterThan(3 * 1024 * 1024 - 1);
			expect((await binaryData.read(binary)).equals(expected.data)).toBe(true);
			expect(item!.json.fileSize).toBe(expected.data.length);
		} finally {
			binaryData.restore();
			await emulator.close();
			rmSync(storage, { recursive: true, force: true });
		}
	});
});
