/**
 * Editor dropdowns from a warm cache with a 1,000-model catalogue: the loadOptions methods of
 * Generate Media in n8n's engine (each call builds its client the way n8n calls it), and the
 * Node-RED admin endpoint the editor fetches (POST /render-service/catalogue, Node-RED 4 via
 * node-red-node-test-helper). Each dropdown is timed over 30 calls after 5 warm-up calls.
 */
import helper from 'node-red-node-test-helper';

import renderGenerate from '../node-red/render-generate';
import renderModels from '../node-red/render-models';
import renderServiceConfig from '../node-red/render-service-config';
import type { RunningEmulator } from '../emulator/types';
import { largeCatalogue, startEmulator } from './lib/emulators';
import { generateNode, renderEngine } from './lib/n8n';
import { summarize, type Summary } from './lib/stats';

export const CATALOGUE_SIZE = 1_000;
const CALLS = 30;
/** Calls before timing starts: the first ones pay for JIT compilation and lazy set-up. */
const WARM_UP_CALLS = 5;

export interface EditorResult {
	id: string;
	label: string;
	/** Options the dropdown shows (n8n) or models returned (Node-RED). */
	options: number;
	summary: Summary;
}

export async function editorEmulator(): Promise<RunningEmulator> {
	return startEmulator({ models: largeCatalogue(CATALOGUE_SIZE) });
}

async function timeCalls(fn: () => Promise<number>): Promise<{ options: number; times: number[] }> {
	let options = 0;
	for (let i = 0; i < WARM_UP_CALLS; i++) options = await fn();
	const times: number[] = [];
	for (let i = 0; i < CALLS; i++) {
		const start = process.hrtime.bigint();
		options = await fn();
		times.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	return { options, times };
}

export async function editorN8n(emulator: RunningEmulator): Promise<EditorResult[]> {
	const engine = renderEngine(emulator);
	const params = {
		modality: 'image',
		family: 'family-05',
		model: 'model-0126',
		task: 't2i',
		format: '512',
		prompt: 'x',
	};
	const node = generateNode(params);
	const methods = [
		'getModalities',
		'getFamilies',
		'getModels',
		'getTasks',
		'getFormats',
		'getBackends',
	];
	const results: EditorResult[] = [];
	for (const method of methods) {
		const { options, times } = await timeCalls(
			async () => (await engine.loadOptions(node, method, params)).length,
		);
		results.push({
			id: `n8n-${method}`,
			label: `n8n loadOptions ${method}`,
			options,
			summary: summarize(times),
		});
	}
	return results;
}

export async function editorNodeRed(emulator: RunningEmulator): Promise<EditorResult> {
	const flow = [
		{ id: 'tab', type: 'tab', label: 'bench' },
		{
			id: 'cfg',
			type: 'render-service-config',
			name: 'emulator',
			baseUrl: emulator.baseUrl,
			asyncUrl: emulator.asyncUrl,
		},
		{ id: 'models', type: 'render-models', z: 'tab', config: 'cfg', wires: [] },
	];
	await helper.load([renderServiceConfig, renderModels, renderGenerate] as never, flow, {
		cfg: { apiKey: emulator.apiKey },
	});
	try {
		const { options, times } = await timeCalls(async () => {
			const res = await helper.request().post('/render-service/catalogue').send({ config: 'cfg' });
			if (res.status !== 200) throw new Error(`catalogue endpoint answered ${res.status}`);
			return (res.body as { models: unknown[] }).models.length;
		});
		return {
			id: 'node-red-catalogue',
			label: 'Node-RED admin endpoint /render-service/catalogue',
			options,
			summary: summarize(times),
		};
	} finally {
		await helper.unload();
	}
}
