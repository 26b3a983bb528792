/**
 * A real crash: another process runs the Render Service Trigger in n8n's real engine, claims a
 * job, emits it and is killed (SIGKILL) while the execution it started is still running. The
 * trigger activated afterwards (n8n started again) delivers that job again, exactly once.
 * The child is bundled from source with esbuild; its packages come from this repository.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { buildSync } from 'esbuild';

import { createEmulator } from '../../emulator';
import type { RunningEmulator } from '../../emulator/types';
import { JobLedger } from '../../nodes/RenderService/shared/ledger';
import { chain, node, type ActiveTrigger } from '../helpers/n8n-engine';
import { createRenderEngine, generateParams, renderNode, TYPES } from '../helpers/n8n-render';
import { until as waitUntil } from '../helpers/until';

jest.setTimeout(90_000);

const root = resolve(__dirname, '../..');

describe('n8n Render Service Trigger after a crash of the process holding a claim', () => {
	let emulator: RunningEmulator;
	let folder: string;
	let child: ChildProcess | undefined;
	let restarted: ActiveTrigger | undefined;
	const previousUserFolder = process.env.N8N_USER_FOLDER;

	beforeAll(async () => {
		folder = mkdtempSync(join(tmpdir(), 'n8n-crash-'));
		process.env.N8N_USER_FOLDER = join(folder, 'user');
		buildSync({
			entryPoints: [join(__dirname, 'n8n-trigger-crash.child.ts')],
			bundle: true,
			packages: 'external',
			platform: 'node',
			target: 'node20',
			outfile: join(folder, 'child.js'),
			logLevel: 'silent',
		});
		emulator = await createEmulator({ port: 0, queueMs: 20, runMs: 100, heartbeatMs: 500 });
	});
	afterAll(async () => {
		if (child?.pid && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		await restarted?.close();
		await emulator.close();
		rmSync(folder, { recursive: true, force: true });
		if (previousUserFolder === undefined) delete process.env.N8N_USER_FOLDER;
		else process.env.N8N_USER_FOLDER = previousUserFolder;
	});

	/** Starts the child and resolves with a reader of its output once its trigger is active. */
	function startChild(): Promise<() => string> {
		child = spawn(process.execPath, [join(folder, 'child.js')], {
			cwd: root,
			env: {
				...process.env,
				NODE_PATH: join(root, 'node_modules'),
				RENDER_API_KEY: emulator.apiKey,
				RENDER_BASE_URL: emulator.baseUrl,
				RENDER_ASYNC_URL: emulator.asyncUrl,
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		return new Promise((resolveActive, reject) => {
			const onData = (chunk: Buffer) => {
				out += chunk.toString();
				if (out.includes('ACTIVE\n')) resolveActive(() => out);
			};
			child!.stdout!.on('data', onData);
			child!.stderr!.on('data', onData);
			child!.once('exit', (code) => reject(new Error(`the child exited early (${code}): ${out}`)));
		});
	}

	const until = (check: () => boolean | Promise<boolean>, what: string) =>
		waitUntil(check, 30_000, what);

	it('fires the job again, once, after the restart', async () => {
		const ledger = new JobLedger();
		const output = await startChild();
		const submitted = await createRenderEngine(emulator).run({
			workflowId: 'wf-submit',
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode('Submit', TYPES.generateMedia, generateParams({ mode: 'submit' })),
			],
			connections: chain('Start', 'Submit'),
			startNode: 'Submit',
		});
		const jobId = submitted.output('Submit')[0]!.json.jobId as string;

		await until(() => output().includes(`EMITTED ${jobId}`), 'the emit in the child');
		const [claim] = await ledger.claimed(jobId);
		expect(claim?.claimant.pid).toBe(child!.pid);

		// n8n dies while the execution the trigger started is running.
		const exited = new Promise((r) => child!.once('exit', r));
		child!.kill('SIGKILL');
		await exited;
		expect(readdirSync(ledger.claimedDir)).toHaveLength(1);

		restarted = await createRenderEngine(emulator).activateTrigger(
			renderNode('Render Service Trigger', TYPES.trigger, { options: { rescanSeconds: 0.2 } }),
			{ workflowId: 'wf-a' },
		);
		await until(() => restarted!.emitted.length === 1, 'the delivery after the restart');
		await until(async () => (await ledger.delivered(jobId)) !== undefined, 'the record');
		await new Promise((r) => setTimeout(r, 800)); // several rescans: no second firing
		expect(restarted.emitted).toHaveLength(1);
		const item = restarted.emitted[0]![0]![0]!;
		expect(item.json).toMatchObject({ jobId, status: 'complete', redelivered: true });
		expect(item.binary?.data).toBeDefined();
		const record = (await ledger.delivered(jobId))!;
		expect(record.claimant?.pid).toBe(process.pid);
		expect(record.previousClaimants?.map((c) => c.pid)).toEqual([child!.pid]);
		expect(readdirSync(ledger.claimedDir)).toEqual([]);
		expect(JSON.stringify(record)).not.toContain(emulator.apiKey);
	});
});
