import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	fileNameFor,
	JobLedger,
	ledgerDir,
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
});
