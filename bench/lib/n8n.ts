/**
 * Our n8n nodes in n8n's real engine, in process (test/helpers/n8n-engine.ts), plus a Sink
 * node that stamps the moment each item arrives from Generate Media: "the item left our node".
 */
import type { INodeExecutionData, INodeType } from 'n8n-workflow';

import { RenderServiceApi } from '../../credentials/RenderServiceApi.credentials';
import { RenderServiceGenerateMedia } from '../../nodes/RenderService/GenerateMedia/RenderServiceGenerateMedia.node';
import { RenderServiceListModels } from '../../nodes/RenderService/ListModels/RenderServiceListModels.node';
import type { RunningEmulator } from '../../emulator/types';
import {
	chain,
	createN8nEngine,
	node,
	PACKAGE,
	type N8nEngine,
} from '../../test/helpers/n8n-engine';
import { JOB_REQUEST } from './emulators';

export const GENERATE = `${PACKAGE}.renderServiceGenerateMedia`;
export const LIST_MODELS = `${PACKAGE}.renderServiceListModels`;
const SINK = 'bench.sink';
const CREDENTIALS = { renderServiceApi: { id: 'cred-1', name: 'Render Service Emulator' } };

export interface Arrival {
	at: number;
	item: INodeExecutionData;
}

function sinkType(arrivals: Arrival[]): INodeType {
	return {
		description: {
			displayName: 'Sink',
			name: 'sink',
			group: ['transform'],
			version: 1,
			description: 'Stamps arriving items',
			defaults: { name: 'Sink' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
		async execute(this) {
			const at = Date.now();
			const items = this.getInputData();
			for (const item of items) arrivals.push({ at, item });
			return [items];
		},
	} as INodeType;
}

export function renderEngine(emulator: RunningEmulator, arrivals: Arrival[] = []): N8nEngine {
	return createN8nEngine({
		nodeTypes: [
			{ type: GENERATE, nodeType: new RenderServiceGenerateMedia() },
			{ type: LIST_MODELS, nodeType: new RenderServiceListModels() },
			{ type: SINK, nodeType: sinkType(arrivals) },
		],
		credentialTypes: [new RenderServiceApi()],
		credentials: {
			renderServiceApi: {
				apiKey: emulator.apiKey,
				baseUrl: emulator.baseUrl,
				asyncUrl: emulator.asyncUrl,
			},
		},
	});
}

/** Runs Generate Media -> Sink once over `input`; throws when the run failed. */
export async function runGenerate(
	engine: N8nEngine,
	parameters: Record<string, unknown>,
	input: INodeExecutionData[] = [{ json: {} }],
): Promise<INodeExecutionData[]> {
	const result = await engine.run({
		nodes: [
			node('Generate', GENERATE, { ...JOB_REQUEST, ...parameters } as never, {
				credentials: CREDENTIALS,
			}),
			node('Sink', SINK),
		],
		connections: chain('Generate', 'Sink'),
		startNode: 'Generate',
		input,
	});
	const error = result.run.data.resultData.error ?? result.nodeError('Generate');
	if (error) throw new Error(`Generate Media failed: ${error.message}`);
	return result.output('Generate');
}

export function generateNode(parameters: Record<string, unknown> = {}) {
	return node('Generate', GENERATE, { ...JOB_REQUEST, ...parameters } as never, {
		credentials: CREDENTIALS,
	});
}
