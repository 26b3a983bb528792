import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { renameSync } from 'node:fs';

import {
	bootId,
	claimantGone,
	fileNameFor,
	JobLedger,
	ledgerDir,
	pidAlive,
	type LedgerEntry,
} from '../../nodes/RenderService/shared/ledger';

function entry(jobId: string): LedgerEntry {
	return {
		version: 1,
		jobId,
		asyncUrl: 'http://queue',
		baseUrl: 'http://api',
		jobUrl: `http://queue/jobs/${jobId}`,
		idempotencyKey: 'k',
		modality: 'image',
		family: 'flux',
		model: 'schnell',
		task: 't2i',
		format: '512',
		prompt: 'p',
		submittedAt: new Date(0).toISOString(),
	};
}

describe('job ledger', () => {
	let dir: string;
	beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ledger-'))));
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('lives under the n8n user folder, like n8n’s own data', () => {
		expect(ledgerDir({ N8N_USER_FOLDER: '/data' })).toBe('/data/.n8n/render-service/jobs');
		expect(ledgerDir({ RENDER_SERVICE_LEDGER_DIR: '/shared/jobs' })).toBe('/shared/jobs');
	});

	it('lets exactly one of many concurrent claimants deliver a job', async () => {
		const ledger = new JobLedger(dir);
		await ledger.record(entry('job-1'));
		const claims = await Promise.all(
			Array.from({ length: 12 }, (_v, i) =>
				new JobLedger(dir).claim(entry('job-1'), 'delivered', `wf/${i}`),
			),
		);
		expect(claims.filter(Boolean)).toHaveLength(1);
		expect(await ledger.pending()).toEqual([]);
		expect((await ledger.delivered('job-1'))?.outcome).toBe('delivered');
	});

	it('writes atomically and keeps odd job IDs inside the folder', async () => {
		const ledger = new JobLedger(dir);
		await ledger.record(entry('../../etc/passwd'));
		expect(fileNameFor('../../etc/passwd')).not.toContain('/');
		const names = readdirSync(ledger.pendingDir);
		expect(names).toHaveLength(1);
		expect(names[0]).not.toMatch(/\.tmp$/);
		expect(JSON.parse(readFileSync(join(ledger.pendingDir, names[0]!), 'utf8')).jobId).toBe(
			'../../etc/passwd',
		);
		expect((await ledger.pending()).map((e) => e.jobId)).toEqual(['../../etc/passwd']);
	});

	it('reports nothing pending before anything was recorded', async () => {
		expect(await new JobLedger(join(dir, 'missing')).pending()).toEqual([]);
		expect(await new JobLedger(dir).claim(entry('never'), 'delivered', 'wf/1')).toBe(false);
	});

	describe('claims that wait for the execution to end', () => {
		it('lets exactly one of many concurrent claimants take a job, naming the claimant', async () => {
			const ledger = new JobLedger(dir);
			await ledger.record(entry('job-2'));
			const claims = await Promise.all(
				Array.from({ length: 12 }, (_v, i) =>
					new JobLedger(dir).take(entry('job-2'), 'delivered', `wf/${i}`),
				),
			);
			const won = claims.filter((claim) => claim !== undefined);
			expect(won).toHaveLength(1);
			expect(await ledger.pending()).toEqual([]);
			expect(await ledger.delivered('job-2')).toBeUndefined();
			const [claimed] = await ledger.claimed('job-2');
			expect(claimed?.claimant).toMatchObject({ pid: process.pid, bootId: bootId() });
			expect(claimed?.claimant.by).toBe(won[0]!.entry.claimant.by);
			expect(new Date(claimed!.claimant.claimedAt).getTime()).not.toBeNaN();
		});

		it('moves the claim to delivered when the execution has ended, recording its error', async () => {
			const ledger = new JobLedger(dir);
			await ledger.record(entry('job-3'));
			const claim = (await ledger.take(entry('job-3'), 'delivered', 'wf/a'))!;
			expect(await ledger.complete(claim, 'Workflow failed')).toBe(true);
			expect(await ledger.claimed('job-3')).toEqual([]);
			expect(await ledger.delivered('job-3')).toMatchObject({
				outcome: 'delivered',
				deliveredBy: 'wf/a',
				executionError: 'Workflow failed',
				claimant: { pid: process.pid },
			});
			expect(await ledger.complete(claim)).toBe(false);
		});

		it('gives a claim back to pending when nothing was emitted', async () => {
			const ledger = new JobLedger(dir);
			await ledger.record(entry('job-4'));
			const claim = (await ledger.take(entry('job-4'), 'delivered', 'wf/a'))!;
			expect(await ledger.release(claim)).toBe(true);
			expect((await ledger.pending()).map((e) => e.jobId)).toEqual(['job-4']);
		});
	});

	describe('orphans of crashed processes', () => {
		/** A claim as a process with this pid and boot ID would have left it. */
		async function claimAs(ledger: JobLedger, jobId: string, pid: number, boot: string) {
			await ledger.record(entry(jobId));
			const claim = (await ledger.take(entry(jobId), 'delivered', 'wf/crashed'))!;
			const file = join(ledger.claimedDir, `${jobId}.${pid}-${boot}.json`);
			renameSync(claim.file, file);
			return file;
		}

		it('tells a live claimant from a dead one or a restarted process with the same pid', () => {
			expect(pidAlive(process.pid)).toBe(true);
			expect(claimantGone(process.pid, bootId())).toBe(false);
			expect(claimantGone(process.pid, 'an0ther0boot')).toBe(true);
			expect(claimantGone(4242, 'x', () => true)).toBe(false);
			expect(claimantGone(4242, 'x', () => false)).toBe(true);
		});

		it('finds orphans and leaves live claims alone', async () => {
			const ledger = new JobLedger(dir);
			await ledger.record(entry('live'));
			await ledger.take(entry('live'), 'delivered', 'wf/live');
			await claimAs(ledger, 'restarted', process.pid, 'deadbeef');
			await claimAs(ledger, 'dead', 4242, 'cafe');
			await claimAs(ledger, 'other-live', 4343, 'cafe');
			const orphans = await ledger.orphans((pid) => pid === 4343);
			expect(orphans.map((o) => o.jobId).sort()).toEqual(['dead', 'restarted']);
		});

		it('requeues an orphan exactly once, keeping who claimed it before', async () => {
			const ledger = new JobLedger(dir);
			await claimAs(ledger, 'job-5', process.pid, 'deadbeef');
			const [orphan] = await ledger.orphans();
			const requeued = await Promise.all(
				Array.from({ length: 8 }, () => new JobLedger(dir).requeue(orphan!)),
			);
			expect(requeued.filter(Boolean)).toHaveLength(1);
			const [pendingAgain] = await ledger.pending();
			expect(pendingAgain?.claimant?.by).toBe('wf/crashed');
			const claim = (await ledger.take(pendingAgain!, 'delivered', 'wf/next'))!;
			expect(claim.entry.claimant.by).toBe('wf/next');
			expect(claim.entry.previousClaimants?.map((c) => c.by)).toEqual(['wf/crashed']);
		});
	});
});
