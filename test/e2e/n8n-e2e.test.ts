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
	type N8nCredential,
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

const EXAMPLES = join(__dirname, '..', '..', 'examples', 'n8n');
const WORKFLOWS = {
	listAndGenerate: 'rsExampleListGen',
	batch: 'rsExampleBatch20',
	submit: 'rsExampleSubmit1',
	trigger: 'rsExampleTrigger1',
};

let emulator: RunningEmulator;
let workDir: string;
let n8n: N8nInstance;

async function example<T>(name: string): Promise<T> {
	return JSON.parse(await readFile(join(EXAMPLES, name), 'utf8')) as T;
}

/** The example credential as shipped, pointed at this test's emulator (its ports are random). */
async function emulatorCredentials(): Promise<N8nCredential[]> {
	const credentials = await example<N8nCredential[]>('credentials.emulator.json');
	return credentials.map((credential) => ({
		...credential,
		data: { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl },
	}));
}

beforeAll(async () => {
	emulator = await createEmulator({ port: 0, queueMs: 100, runMs: 400 });
	workDir = await makeTempDir('n8n-e2e');
	const tarball = await packPackage(join(workDir, 'pack'));
	n8n = await N8nInstance.create(await provisionN8n(), { packageTarball: tarball });
	await n8n.importCredentials(await emulatorCredentials());
	// The example workflows exactly as users import them.
	const names = (await readdir(EXAMPLES)).filter((name) => /^\d.*\.json$/.test(name));
	await n8n.importWorkflows(
		await Promise.all(names.map(async (name) => await example<object>(name))),
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

describe('real n8n runs the example workflows', () => {
	it('01 List Models -> Generate Media (wait, SSE) outputs the PNG the service serves, byte for byte', async () => {
		const before = emulator.jobs().length;
		const sseBefore = emulator.counters().sseConnections;

		const run = await n8n.execute(WORKFLOWS.listAndGenerate);

		const [list] = nodeOutput(run, 'List Models');
		const models = (list?.json.models as Array<{ family: string; model: string }>) ?? [];
		expect(models.map((model) => `${model.family}/${model.model}`)).toContain('flux/schnell');
		const [item, ...rest] = nodeOutput(run, 'Generate Media');
		expect(rest).toHaveLength(0);
		await expectFileOfJob(item!, run);
		const jobs = newJobs(before);
		expect(jobs).toHaveLength(1);
		expect(jobs[0]!.request).toMatchObject({ family: 'flux', model: 'schnell', format: '512' });
		expect(emulator.counters().sseConnections).toBeGreaterThan(sseBefore);
		expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
		expect(JSON.stringify(run)).not.toContain(emulator.apiKey);
	});

	it('02 20 items with concurrency 4: 20 jobs, 20 outputs in input order, each with its own file', async () => {
		const before = emulator.jobs().length;

		const run = await n8n.execute(WORKFLOWS.batch);

		const inputs = nodeOutput(run, 'One Item per Prompt');
		const items = nodeOutput(run, 'Generate Media');
		expect(inputs).toHaveLength(20);
		expect(items).toHaveLength(20);
		const jobs = newJobs(before);
		expect(jobs).toHaveLength(20);
		const promptOfJob = new Map(jobs.map((job) => [job.id, job.request.prompt]));
		for (const [index, item] of items.entries()) {
			expect(item.pairedItem).toEqual({ item: index });
			expect(promptOfJob.get(jobIdOf(item))).toBe(inputs[index]!.json.prompts);
			await expectFileOfJob(item, run);
		}
		expect(new Set(items.map(jobIdOf)).size).toBe(20);
		expect(maxJobsInFlight(jobs)).toBeLessThanOrEqual(4);
		expect(maxJobsInFlight(jobs)).toBeGreaterThan(1);
	});

	describe('03a Submit Only in one workflow, 03b the trigger in another', () => {
		/** The job IDs of the trigger workflow's executions, one entry per execution. */
		async function firings(): Promise<Array<{ jobId: string; item: N8nItem }>> {
			const executions = await n8n.executions(WORKFLOWS.trigger);
			return executions.flatMap((execution) => {
				const runs = execution.data.resultData.runData['Render Service Trigger'];
				const items = runs?.[0]?.data?.main[0] ?? [];
				return items.map((item) => ({ jobId: jobIdOf(item), item }));
			});
		}

		async function submitThree(): Promise<string[]> {
			const run = await n8n.execute(WORKFLOWS.submit);
			const items = nodeOutput(run, 'Submit Jobs');
			expect(items).toHaveLength(3);
			expect(items.every((item) => item.binary === undefined)).toBe(true);
			return items.map(jobIdOf);
		}

		async function expectFiredOnceWithTheFile(jobIds: string[]): Promise<void> {
			await waitFor(
				async () => {
					const fired = new Set((await firings()).map((firing) => firing.jobId));
					return jobIds.every((id) => fired.has(id)) || undefined;
				},
				90_000,
				`the trigger to fire for ${jobIds.join(', ')}`,
			).catch(async (error: Error) => {
				throw new Error(`${error.message}\n${await n8n.logs()}`);
			});
			// Several rescans of the ledger (every second in 03b) pass: a second firing would show.
			await sleep(4000);
			const fired = await firings();
			for (const jobId of jobIds) {
				const ofJob = fired.filter((firing) => firing.jobId === jobId);
				expect(ofJob).toHaveLength(1);
				const binary = ofJob[0]!.item.binary?.data;
				expect(binary?.mimeType).toBe('image/png');
				const bytes = await n8n.binaryBytes(binary!);
				expect(bytes.equals(emulator.expectedResult(jobId)!.data)).toBe(true);
			}
		}

		afterAll(async () => {
			await n8n?.stop();
		});

		it('fires exactly once per job, with the file, while n8n runs', async () => {
			await n8n.publishWorkflow(WORKFLOWS.trigger);
			await n8n.start();

			const jobIds = await submitThree();

			await expectFiredOnceWithTheFile(jobIds);
			expect(await firings()).toHaveLength(3);
		});

		it('fires exactly once for jobs that were pending across a restart, and not again for old ones', async () => {
			await n8n.stop();
			const firedBefore = (await firings()).map((firing) => firing.jobId);

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
			const all = (await firings()).map((firing) => firing.jobId);
			expect(all).toHaveLength(firedBefore.length + jobIds.length);
			expect(new Set(all)).toEqual(new Set([...firedBefore, ...jobIds]));
		});
	});
});
