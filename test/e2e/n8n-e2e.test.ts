/**
 * Real n8n 2.x (the pinned release, on Node 24, from the e2e cache) with the packed package
 * installed as a community package. Workflows are imported and run headless with
 * `n8n execute --id`; the trigger runs in `n8n start` while another process submits jobs.
 * The emulator runs in this process and n8n reaches it over loopback HTTP.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createEmulator, type JobView, type RunningEmulator } from '../../emulator';
import {
	N8nInstance,
	nodeOutput,
	provisionN8n,
	type N8nItem,
	type N8nRun,
} from '../helpers/e2e-n8n';
import {
	PROVISION_TIMEOUT_MS,
	makeTempDir,
	packPackage,
	removeDir,
	sleep,
	waitFor,
} from '../helpers/e2e-process';

jest.setTimeout(5 * 60_000);

const FIXTURES = join(__dirname, 'fixtures', 'n8n');
const CREDENTIAL = { id: 'e2eRenderCredent', name: 'Render Service (emulator)' };

let emulator: RunningEmulator;
let workDir: string;
let n8n: N8nInstance;

async function fixture(name: string): Promise<Record<string, unknown>> {
	const text = await readFile(join(FIXTURES, `${name}.json`), 'utf8');
	// Paths inside workflows must lie under N8N_RESTRICT_FILE_ACCESS_TO, known only now.
	return JSON.parse(text.replaceAll('__FILES_DIR__', n8n.filesDir)) as Record<string, unknown>;
}

beforeAll(async () => {
	emulator = await createEmulator({ port: 0, queueMs: 100, runMs: 400 });
	workDir = await makeTempDir('n8n-e2e');
	const tarball = await packPackage(join(workDir, 'pack'));
	n8n = await N8nInstance.create(await provisionN8n(), { packageTarball: tarball });
	await n8n.importCredentials([
		{
			...CREDENTIAL,
			type: 'renderServiceApi',
			data: { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl },
		},
	]);
	await n8n.importWorkflows(
		await Promise.all(
			['list-and-generate', 'twenty-items', 'submit-only', 'trigger-saves-files'].map(fixture),
		),
	);
}, PROVISION_TIMEOUT_MS);

afterAll(async () => {
	await n8n?.dispose();
	await emulator?.close();
	await removeDir(workDir);
});

function newJobs(before: number): JobView[] {
	return emulator.jobs().slice(before);
}

function jobIdOf(item: N8nItem): string {
	const jobId = item.json.jobId;
	if (typeof jobId !== 'string') throw new Error(`item has no jobId: ${JSON.stringify(item.json)}`);
	return jobId;
}

async function expectFileOfJob(item: N8nItem, run: N8nRun): Promise<void> {
	const binary = item.binary?.data;
	if (!binary) throw new Error(`item has no binary data: ${JSON.stringify(item)}`);
	const expected = emulator.expectedResult(jobIdOf(item));
	expect(binary.mimeType).toBe('image/png');
	expect(expected?.mimeType).toBe('image/png');
	const bytes = await n8n.binaryBytes(binary);
	expect(bytes.equals(expected!.data)).toBe(true);
	expect(run.data.resultData.error).toBeUndefined();
}

/** Most jobs that existed at once without being complete: an upper bound of the node's parallelism. */
function maxJobsInFlight(jobs: JobView[]): number {
	return Math.max(
		...jobs.map(
			(job) =>
				jobs.filter(
					(other) =>
						other.createdAt <= job.createdAt && (other.completedAt ?? Infinity) > job.createdAt,
				).length,
		),
	);
}

describe('real n8n runs the Render Service nodes', () => {
	it('List Models -> Generate Media (wait, SSE) outputs the PNG the service serves, byte for byte', async () => {
		const before = emulator.jobs().length;
		const sseBefore = emulator.counters().sseConnections;

		const run = await n8n.execute('e2eListGenerate1');

		const models = nodeOutput(run, 'List Models').map((item) => item.json.model);
		expect(models).toEqual(expect.arrayContaining(['schnell', 'dev']));
		const [item, ...rest] = nodeOutput(run, 'Generate Media');
		expect(rest).toHaveLength(0);
		await expectFileOfJob(item!, run);
		const jobs = newJobs(before);
		expect(jobs).toHaveLength(1);
		expect(jobs[0]!.request).toMatchObject({
			family: 'flux',
			model: models[0],
			format: '512',
			prompt: 'a lighthouse at dawn, oil painting',
		});
		expect(emulator.counters().sseConnections).toBeGreaterThan(sseBefore);
		expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
		expect(JSON.stringify(run)).not.toContain(emulator.apiKey);
	});

	it('20 items with concurrency 4: 20 jobs, 20 outputs in input order, each with its own file', async () => {
		const before = emulator.jobs().length;

		const run = await n8n.execute('e2eTwentyItems01');

		const items = nodeOutput(run, 'Generate Media');
		expect(items).toHaveLength(20);
		const jobs = newJobs(before);
		expect(jobs).toHaveLength(20);
		const promptOfJob = new Map(jobs.map((job) => [job.id, job.request.prompt]));
		for (const [index, item] of items.entries()) {
			expect(item.pairedItem).toEqual({ item: index });
			expect(promptOfJob.get(jobIdOf(item))).toBe(`tile number ${index}`);
			await expectFileOfJob(item, run);
		}
		expect(new Set(items.map(jobIdOf)).size).toBe(20);
		expect(maxJobsInFlight(jobs)).toBeLessThanOrEqual(4);
		expect(maxJobsInFlight(jobs)).toBeGreaterThan(1);
	});

	describe('Submit Only in one workflow, the trigger in another', () => {
		/** Files the trigger workflow wrote: `<jobId>--execution-<id>.png`. */
		async function firedFiles(): Promise<Map<string, string[]>> {
			const byJob = new Map<string, string[]>();
			for (const name of await readdir(n8n.filesDir)) {
				const jobId = name.split('--')[0]!;
				byJob.set(jobId, [...(byJob.get(jobId) ?? []), name]);
			}
			return byJob;
		}

		async function waitForFirings(jobIds: string[]): Promise<Map<string, string[]>> {
			return waitFor(
				async () => {
					const fired = await firedFiles();
					return jobIds.every((id) => fired.has(id)) ? fired : undefined;
				},
				90_000,
				`the trigger to fire for ${jobIds.join(', ')}`,
			).catch(async (error: Error) => {
				throw new Error(`${error.message}\n${await n8n.logs()}`);
			});
		}

		async function submitThree(): Promise<string[]> {
			const run = await n8n.execute('e2eSubmitOnly001');
			const items = nodeOutput(run, 'Submit Job');
			expect(items).toHaveLength(3);
			expect(items.every((item) => item.binary === undefined)).toBe(true);
			return items.map(jobIdOf);
		}

		async function expectFiredOnceWithTheFile(jobIds: string[]): Promise<void> {
			const fired = await waitForFirings(jobIds);
			// Several rescans of the ledger (every 0.5 s) pass: a second firing would show now.
			await sleep(3000);
			const settled = await firedFiles();
			for (const jobId of jobIds) {
				expect(settled.get(jobId)).toHaveLength(1);
				const file = await readFile(join(n8n.filesDir, fired.get(jobId)![0]!));
				expect(file.equals(emulator.expectedResult(jobId)!.data)).toBe(true);
			}
		}

		afterAll(async () => {
			await n8n?.stop();
		});

		it('fires exactly once per job, with the file, while n8n runs', async () => {
			await n8n.publishWorkflow('e2eTriggerSaves1');
			await n8n.start();

			const jobIds = await submitThree();

			await expectFiredOnceWithTheFile(jobIds);
		});

		it('fires exactly once for jobs that were pending across a restart, and not again for old ones', async () => {
			await n8n.stop();
			const firedBefore = await firedFiles();

			const jobIds = await submitThree();
			// The jobs finish while n8n is down.
			await waitFor(
				async () =>
					jobIds.every((id) => emulator.jobs().find((j) => j.id === id)?.status === 'complete') ||
					undefined,
				60_000,
				'the jobs to complete',
			);
			await n8n.start();

			await expectFiredOnceWithTheFile(jobIds);
			const firedAfter = await firedFiles();
			for (const [jobId, files] of firedBefore) expect(firedAfter.get(jobId)).toEqual(files);
		});
	});
});
