/**
 * The Render Service Trigger's claims in n8n's real engine against the emulator over HTTP: a job
 * is claimed while the execution it started runs, delivered once that execution has ended, and
 * delivered again only when the process holding the claim is gone (a crash).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

import { createEmulator } from '../../emulator';
import type { RunningEmulator } from '../../emulator/types';
import { bootId, JobLedger } from '../../nodes/RenderService/shared/ledger';
import { chain, node, type ActiveTrigger } from '../helpers/n8n-engine';
import { createRenderEngine, generateParams, renderNode, TYPES } from '../helpers/n8n-render';
import { until as waitUntil } from '../helpers/until';
import { tempN8nUserFolder } from '../helpers/n8n-user-folder';

jest.setTimeout(60_000);

describe('n8n Render Service Trigger claims in the real engine', () => {
	let emulator: RunningEmulator;
	let ledger: JobLedger;
	const active: ActiveTrigger[] = [];

	beforeAll(async () => {
		emulator = await createEmulator({ port: 0, queueMs: 20, runMs: 100, heartbeatMs: 500 });
	});
	afterEach(async () => {
		for (const trigger of active) trigger.finishExecutions();
		await Promise.all(active.splice(0).map(async (trigger) => await trigger.close()));
	});
	tempN8nUserFolder('n8n-claims-', 'each');
	beforeEach(() => {
		ledger = new JobLedger();
	});
	afterAll(async () => {
		await emulator.close();
	});

	async function submit(prompt: string): Promise<string> {
		const result = await createRenderEngine(emulator).run({
			workflowId: 'wf-submit',
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode('Submit', TYPES.generateMedia, generateParams({ mode: 'submit', prompt })),
			],
			connections: chain('Start', 'Submit'),
			startNode: 'Submit',
		});
		return result.output('Submit')[0]!.json.jobId as string;
	}

	/** An active trigger workflow; `holdExecutions` keeps the executions it starts running. */
	async function activate(workflowId: string, holdExecutions = false) {
		const trigger = await createRenderEngine(emulator).activateTrigger(
			renderNode('Render Service Trigger', TYPES.trigger, { options: { rescanSeconds: 0.2 } }),
			{ workflowId, holdExecutions },
		);
		active.push(trigger);
		return trigger;
	}

	const until = (check: () => boolean | Promise<boolean>, what: string) =>
		waitUntil(check, 20_000, what);

	const scans = async () => await new Promise((resolve) => setTimeout(resolve, 800));
	const jobIdsOf = (trigger: ActiveTrigger) =>
		trigger.emitted.map((run) => run[0]?.[0]?.json.jobId as string);
	const claimedFiles = () => readdirSync(ledger.claimedDir);

	it('holds the claim while the execution runs and delivers once it has ended', async () => {
		const trigger = await activate('wf-a', true);
		const jobId = await submit('claimed while running');
		await until(() => trigger.emitted.length === 1, 'the emit');
		await until(async () => (await ledger.claimed(jobId)).length === 1, 'the claim');

		const [claim] = await ledger.claimed(jobId);
		expect(claim!.claimant).toMatchObject({
			pid: process.pid,
			bootId: bootId(),
			by: 'wf-a/render-service-trigger-id',
		});
		expect(await ledger.pending()).toEqual([]);
		expect(await ledger.delivered(jobId)).toBeUndefined();
		const file = readFileSync(join(ledger.claimedDir, claimedFiles()[0]!), 'utf8');
		expect(file).not.toContain(emulator.apiKey);

		// A second trigger workflow does not take a claim whose process is alive.
		const other = await activate('wf-b');
		await scans();
		expect(other.emitted).toHaveLength(0);

		trigger.finishExecutions();
		await until(async () => (await ledger.delivered(jobId)) !== undefined, 'the delivery');
		expect(claimedFiles()).toEqual([]);
		expect(await ledger.delivered(jobId)).toMatchObject({
			outcome: 'delivered',
			deliveredBy: 'wf-a/render-service-trigger-id',
		});
		await scans();
		expect(jobIdsOf(trigger)).toEqual([jobId]);
		expect(other.emitted).toHaveLength(0);
		expect(trigger.emitted[0]![0]![0]!.json.redelivered).toBeUndefined();
		const delivered = readdirSync(ledger.deliveredDir).map((name) =>
			readFileSync(join(ledger.deliveredDir, name), 'utf8'),
		);
		expect(delivered.join('')).not.toContain(emulator.apiKey);
	});

	it('counts a failed or cancelled execution as delivered and does not fire again', async () => {
		const trigger = await activate('wf-a', true);
		const jobId = await submit('the workflow fails');
		await until(() => trigger.runningExecutions() === 1, 'the execution');
		trigger.finishExecutions(new Error('The workflow failed at node Send'));
		await until(async () => (await ledger.delivered(jobId)) !== undefined, 'the delivery');
		expect((await ledger.delivered(jobId))?.executionError).toBe(
			'The workflow failed at node Send',
		);
		await scans();
		expect(trigger.emitted).toHaveLength(1);
	});

	it('a clean stop waits for the running execution, so a restart does not fire again', async () => {
		const first = await activate('wf-a', true);
		const jobId = await submit('stopped while its execution runs');
		await until(() => first.runningExecutions() === 1, 'the execution');
		let stopped = false;
		const stopping = first.close().then(() => (stopped = true));
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(stopped).toBe(false);
		expect(await ledger.claimed(jobId)).toHaveLength(1);

		first.finishExecutions();
		await stopping;
		expect((await ledger.delivered(jobId))?.outcome).toBe('delivered');

		const second = await activate('wf-a');
		await scans();
		expect(second.emitted).toHaveLength(0);
		expect(jobIdsOf(first)).toEqual([jobId]);
	});

	/**
	 * What a crash between claim and the end of the execution leaves: the claim of a process that
	 * is gone, made through the ledger exactly as the trigger makes it before emitting. n8n
	 * restarted in a container usually gets the same pid, so only the boot ID tells them apart.
	 */
	async function leftByCrash(claimantPid: number): Promise<string> {
		const jobId = await submit('interrupted by a crash');
		const [entry] = await ledger.pending();
		const claim = (await ledger.take(entry!, 'delivered', 'wf-a/render-service-trigger-id'))!;
		renameSync(
			claim.file,
			join(ledger.claimedDir, `${jobId}.${claimantPid}-0123456789abcdef.json`),
		);
		return jobId;
	}

	async function expectRedeliveredOnce(jobId: string) {
		const restarted = await activate('wf-a');
		const other = await activate('wf-b');
		await until(
			() => restarted.emitted.length + other.emitted.length === 1,
			'the delivery after the restart',
		);
		await until(async () => (await ledger.delivered(jobId)) !== undefined, 'the record');
		await scans();
		expect([...jobIdsOf(restarted), ...jobIdsOf(other)]).toEqual([jobId]);
		const [item] = [...restarted.emitted, ...other.emitted][0]![0]!;
		expect(item!.json).toMatchObject({ jobId, status: 'complete', redelivered: true });
		expect(claimedFiles()).toEqual([]);
		expect(await ledger.pending()).toEqual([]);
		const record = (await ledger.delivered(jobId))!;
		expect(record.claimant?.bootId).toBe(bootId());
		expect(record.previousClaimants?.map((c) => c.by)).toEqual(['wf-a/render-service-trigger-id']);
	}

	it('delivers again, once, a job claimed by an earlier boot of the same pid', async () => {
		await expectRedeliveredOnce(await leftByCrash(process.pid));
	});

	it('delivers again, once, a job claimed by a process that has exited', async () => {
		const exited = spawnSync(process.execPath, ['-e', '']).pid;
		await expectRedeliveredOnce(await leftByCrash(exited));
	});
});
