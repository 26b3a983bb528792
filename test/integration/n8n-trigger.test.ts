import { readdirSync } from 'node:fs';

import { createEmulator } from '../../emulator';
import type { RunningEmulator } from '../../emulator/types';
import { JobLedger } from '../../nodes/RenderService/shared/ledger';
import { chain, node, type ActiveTrigger } from '../helpers/n8n-engine';
import {
	binaryBytes,
	createRenderEngine,
	generateParams,
	renderNode,
	TYPES,
} from '../helpers/n8n-render';
import { until as waitUntil } from '../helpers/until';
import { tempN8nUserFolder } from '../helpers/n8n-user-folder';

jest.setTimeout(60_000);

describe('n8n Render Service Trigger in the real engine', () => {
	let emulator: RunningEmulator;
	let ledger: JobLedger;
	const active: ActiveTrigger[] = [];

	beforeAll(async () => {
		emulator = await createEmulator({ port: 0, queueMs: 20, runMs: 100, heartbeatMs: 500 });
	});
	afterEach(async () => {
		await Promise.all(active.splice(0).map(async (trigger) => await trigger.close()));
	});
	tempN8nUserFolder('n8n-trigger-', 'each');
	beforeEach(() => {
		ledger = new JobLedger();
		emulator.setTiming({ queueMs: 20, runMs: 100 });
	});
	afterAll(async () => {
		await emulator.close();
	});

	/** Runs a "Submit Only" workflow with one item per prompt; returns the job IDs. */
	async function submit(promptList: string[]): Promise<string[]> {
		const engine = createRenderEngine(emulator);
		const result = await engine.run({
			workflowId: 'wf-submit',
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode(
					'Submit',
					TYPES.generateMedia,
					generateParams({ mode: 'submit', prompt: '={{ $json.prompt }}' }),
				),
			],
			connections: chain('Start', 'Submit'),
			startNode: 'Submit',
			input: promptList.map((prompt) => ({ json: { prompt } })),
		});
		return result.output('Submit').map((item) => item.json.jobId as string);
	}

	async function activate(
		parameters: Record<string, unknown> = {},
		opts: { workflowId?: string; apiKey?: string; manual?: boolean } = {},
	) {
		const engine = createRenderEngine(emulator, opts.apiKey);
		const trigger = await engine.activateTrigger(
			renderNode('Render Service Trigger', TYPES.trigger, {
				options: { rescanSeconds: 0.2 },
				...parameters,
			} as never),
			{ workflowId: opts.workflowId ?? 'wf-trigger', mode: opts.manual ? 'manual' : 'trigger' },
		);
		active.push(trigger);
		return trigger;
	}

	const until = (check: () => boolean, what: string) => waitUntil(check, 20_000, what);

	const emittedJobIds = (trigger: ActiveTrigger) =>
		trigger.emitted.map((run) => run[0]?.[0]?.json.jobId as string);

	it('fires once per job submitted by another workflow, with the file and the job JSON', async () => {
		const trigger = await activate();
		const jobIds = await submit(['first', 'second']);
		await until(() => trigger.emitted.length >= 2, 'two deliveries');
		expect(emittedJobIds(trigger).sort()).toEqual([...jobIds].sort());
		for (const run of trigger.emitted) {
			const item = run[0]![0]!;
			const expected = emulator.expectedResult(item.json.jobId as string)!;
			expect(binaryBytes(item).equals(expected.data)).toBe(true);
			expect(item.json).toMatchObject({
				status: 'complete',
				family: 'flux',
				model: 'schnell',
				mimeType: expected.mimeType,
				fileSize: expected.data.length,
				sourceWorkflowId: 'wf-submit',
				sourceNode: 'Submit',
			});
		}
		expect(await ledger.pending()).toEqual([]);
		expect((await ledger.delivered(jobIds[0]!))?.outcome).toBe('delivered');
		// Several more scans later, still exactly one delivery per job.
		await new Promise((resolve) => setTimeout(resolve, 800));
		expect(trigger.emitted).toHaveLength(2);
		expect(JSON.stringify(trigger.emitted)).not.toContain(emulator.apiKey);
		// The watcher sets the bearer header itself after activation: never on CDN downloads.
		expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
	});

	it('delivers each job once in total when two trigger workflows are active', async () => {
		const a = await activate({}, { workflowId: 'wf-a' });
		const b = await activate({}, { workflowId: 'wf-b' });
		const jobIds = await submit(['one', 'two', 'three', 'four']);
		await until(() => a.emitted.length + b.emitted.length >= 4, 'four deliveries');
		await new Promise((resolve) => setTimeout(resolve, 800));
		const all = [...emittedJobIds(a), ...emittedJobIds(b)];
		expect(all.sort()).toEqual([...jobIds].sort());
	});

	it('keeps pending jobs across a deactivation and fires them after reactivation', async () => {
		emulator.setTiming({ queueMs: 20, runMs: 1500 });
		const first = await activate();
		const [jobId] = await submit(['slow one']);
		await new Promise((resolve) => setTimeout(resolve, 300));
		await first.close(); // n8n stops, the job is still running
		await until(
			() => emulator.jobs().find((job) => job.id === jobId)?.status === 'complete',
			'the job to complete while the trigger is inactive',
		);
		expect(first.emitted).toHaveLength(0);
		expect((await ledger.pending()).map((entry) => entry.jobId)).toEqual([jobId]);

		const second = await activate(); // n8n started again
		await until(() => second.emitted.length >= 1, 'the delivery after restart');
		expect(emittedJobIds(second)).toEqual([jobId]);
		await new Promise((resolve) => setTimeout(resolve, 600));
		expect(second.emitted).toHaveLength(1);
	});

	it('ignores failed jobs unless asked, and then fires with the error', async () => {
		const quiet = await activate({}, { workflowId: 'wf-quiet' });
		const [failedQuietly] = await submit(['broken [fail]']);
		await until(
			() => emulator.jobs().find((job) => job.id === failedQuietly)?.status === 'failed',
			'the job to fail',
		);
		await new Promise((resolve) => setTimeout(resolve, 600));
		expect(quiet.emitted).toHaveLength(0);
		expect((await ledger.delivered(failedQuietly!))?.outcome).toBe('ignored');
		await quiet.close();

		const loud = await activate({ includeFailed: true }, { workflowId: 'wf-loud' });
		const [failedLoudly] = await submit(['broken again [fail]']);
		await until(() => loud.emitted.length >= 1, 'the failure delivery');
		const item = loud.emitted[0]![0]![0]!;
		expect(item.json).toMatchObject({ jobId: failedLoudly, status: 'failed' });
		expect(typeof item.json.error).toBe('string');
		expect(item.binary).toBeUndefined();
	});

	it('leaves jobs of another queue address alone', async () => {
		const [jobId] = await submit(['not for this trigger']);
		const pending = await ledger.pending();
		await ledger.record({ ...pending[0]!, asyncUrl: 'http://127.0.0.1:9/elsewhere' });
		const trigger = await activate();
		await new Promise((resolve) => setTimeout(resolve, 800));
		expect(trigger.emitted).toHaveLength(0);
		expect((await ledger.pending()).map((entry) => entry.jobId)).toEqual([jobId]);
	});

	it('a test run in the editor fires without claiming the job', async () => {
		const [jobId] = await submit(['preview']);
		const preview = await activate({}, { manual: true });
		await until(() => preview.emitted.length >= 1, 'the preview');
		expect(emittedJobIds(preview)).toEqual([jobId]);
		expect((await ledger.pending()).map((entry) => entry.jobId)).toEqual([jobId]);
		const production = await activate();
		await until(() => production.emitted.length >= 1, 'the production delivery');
		expect(readdirSync(ledger.deliveredDir)).toHaveLength(1);
	});
});
