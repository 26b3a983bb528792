/**
 * Real Node-RED processes with the packed package installed in their user directory: the
 * example flow inject -> render-generate -> file writes the PNG to disk, and it must be byte for byte what
 * the emulator serves. Node-RED 5 runs on Node 24 (both provisioned into the e2e cache);
 * Node-RED 4, the devDependency, runs on the Node that runs jest.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createEmulator, type RunningEmulator } from '../../emulator';
import {
	PROVISION_TIMEOUT_MS,
	makeTempDir,
	packPackage,
	removeDir,
	waitFor,
} from '../helpers/e2e-process';
import {
	nodeRed4,
	provisionNodeRed5,
	startNodeRed,
	type FlowNode,
	type NodeRedInstance,
	type NodeRedRuntime,
} from '../helpers/e2e-node-red';

jest.setTimeout(180_000);

let emulator: RunningEmulator;
let workDir: string;
let tarball: string;

beforeAll(async () => {
	emulator = await createEmulator({ port: 0 });
	workDir = await makeTempDir('node-red-e2e');
	tarball = await packPackage(join(workDir, 'pack'));
});

afterAll(async () => {
	await emulator?.close();
	await removeDir(workDir);
});

const EXAMPLES = join(__dirname, '..', '..', 'examples', 'node-red');

/**
 * A shipped example flow with the edits its comment asks a user to make: the config node's
 * address and key (this emulator's), and where files go (a temp path). The nodes are put on a
 * tab, as importing into the editor does.
 */
async function exampleFlow(
	name: string,
	outputPath: string,
): Promise<{ flow: FlowNode[]; injectId: string; prompt: unknown }> {
	const nodes = JSON.parse(await readFile(join(EXAMPLES, name), 'utf8')) as FlowNode[];
	const flow: FlowNode[] = [{ id: 'e2e-tab', type: 'tab', label: 'Render e2e' }];
	for (const node of nodes) {
		if (node.type === 'render-service-config') {
			// Sent once through the admin API; Node-RED stores it encrypted in flows_cred.json.
			const credentials = { apiKey: emulator.apiKey };
			flow.push({ ...node, baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl, credentials });
		} else if (node.type === 'file') {
			flow.push({ ...node, z: 'e2e-tab', filename: outputPath });
		} else if (node.type === 'render-job' && node.outputFile) {
			flow.push({ ...node, z: 'e2e-tab', outputFile: outputPath });
		} else {
			flow.push({ ...node, z: 'e2e-tab' });
		}
	}
	const inject = flow.find((node) => node.type === 'inject');
	if (!inject) throw new Error(`${name} has no inject node`);
	return { flow, injectId: inject.id, prompt: inject.payload };
}

async function generatesThePng(
	runtime: () => Promise<NodeRedRuntime>,
	major: string,
): Promise<void> {
	let nodeRed: NodeRedInstance | undefined;
	try {
		nodeRed = await startNodeRed(await runtime(), { packageTarball: tarball });
		expect(nodeRed.version.split('.')[0]).toBe(major);
		expect(await nodeRed.nodeTypes()).toEqual(
			expect.arrayContaining([
				'render-service-config',
				'render-generate',
				'render-models',
				'render-job',
			]),
		);
		const jobsBefore = emulator.jobs().length;
		const pngPath = join(workDir, `node-red-${major}`, 'lighthouse.png');
		const { flow, injectId, prompt } = await exampleFlow(
			'02 Generate an image to a file.json',
			pngPath,
		);
		await nodeRed.deploy(flow);
		await nodeRed.inject(injectId);

		const job = await waitFor(
			async () =>
				emulator
					.jobs()
					.slice(jobsBefore)
					.find((j) => j.status === 'complete'),
			60_000,
			'the job to complete on the emulator',
		);
		const expected = emulator.expectedResult(job.id);
		expect(expected?.mimeType).toBe('image/png');
		// The file node writes once the whole message arrived; wait for all of it.
		const written = await waitFor(
			async () => {
				const data = await readFile(pngPath);
				return data.length === expected?.data.length ? data : undefined;
			},
			30_000,
			`${pngPath} to hold the result`,
		).catch((error: Error) => {
			throw new Error(`${error.message}\n${nodeRed?.logs() ?? ''}`);
		});
		expect(written.equals(expected!.data)).toBe(true);
		expect(emulator.jobs().length - jobsBefore).toBe(1);
		expect(emulator.jobs().at(-1)?.request.prompt).toBe(prompt);
		expect(emulator.counters().cdnAuthorizationHeaders).toBe(0);
		expect(nodeRed.logs()).not.toContain(emulator.apiKey);
	} finally {
		await nodeRed?.stop();
	}
}

describe('real Node-RED runs the example flow inject -> render-generate -> file', () => {
	it(
		'Node-RED 5 on Node 24 writes the PNG byte for byte as the service serves it',
		async () => await generatesThePng(provisionNodeRed5, '5'),
		PROVISION_TIMEOUT_MS,
	);

	it('Node-RED 4 on the Node running the tests writes the same PNG', async () => {
		await generatesThePng(async () => nodeRed4(), '4');
	});

	it(
		'Node-RED 5: render-job resumes a pending job after a restart and writes its file once',
		async () => {
			const nodeRed = await startNodeRed(await provisionNodeRed5(), {
				packageTarball: tarball,
				persistentContext: true,
			});
			try {
				// Long enough that the job is still running when Node-RED stops.
				emulator.setTiming({ runMs: 8000 });
				const before = emulator.jobs().length;
				const outDir = join(workDir, 'collected') + '/';
				const { flow, injectId } = await exampleFlow('03 Submit now, collect later.json', outDir);
				const jobNode = flow.find((node) => node.type === 'render-job')!;
				await nodeRed.deploy(flow);
				await nodeRed.inject(injectId);
				const job = await waitFor(
					async () => emulator.jobs().slice(before)[0],
					30_000,
					'the submitted job',
				);
				await waitFor(
					async () => (await nodeRed.nodeContext(jobNode.id)).includes(job.id) || undefined,
					30_000,
					`render-job to record ${job.id} in its context`,
				);

				// The proof needs the job unfinished and nothing written when the process stops.
				expect(emulator.jobs().find((j) => j.id === job.id)?.status).not.toBe('complete');
				expect(await readdir(outDir).catch(() => [])).toEqual([]);
				await nodeRed.restart();

				const expected = await waitFor(
					async () => emulator.expectedResult(job.id),
					60_000,
					'the job to complete',
				);
				const written = await waitFor(
					async () => {
						const names = await readdir(outDir).catch(() => []);
						return names.length > 0 ? names : undefined;
					},
					60_000,
					'render-job to write the file after the restart',
				).catch((error: Error) => {
					throw new Error(`${error.message}\n${nodeRed.logs()}`);
				});
				expect(
					emulator
						.jobs()
						.slice(before)
						.map((j) => j.id),
				).toEqual([job.id]);
				expect(written).toEqual([expect.stringContaining(job.id)]);
				const bytes = await readFile(join(outDir, written[0]!));
				expect(bytes.equals(expected.data)).toBe(true);
				expect(nodeRed.logs()).toContain('Stopped flows');
			} finally {
				emulator.setTiming({ runMs: 1500 });
				await nodeRed.stop();
			}
		},
		PROVISION_TIMEOUT_MS,
	);
});
