/**
 * Wires this package's n8n nodes and credential into the in-process engine of
 * `n8n-engine.ts`, with credentials pointing at a running emulator.
 */
import type { INode, INodeExecutionData } from 'n8n-workflow';

import { RenderServiceApi } from '../../credentials/RenderServiceApi.credentials';
import { RenderServiceGenerateMedia } from '../../nodes/RenderService/GenerateMedia/RenderServiceGenerateMedia.node';
import { RenderServiceListModels } from '../../nodes/RenderService/ListModels/RenderServiceListModels.node';
import { RenderServiceTrigger } from '../../nodes/RenderService/Trigger/RenderServiceTrigger.node';
import type { RunningEmulator } from '../../emulator/types';
import { createN8nEngine, node, PACKAGE, type N8nEngine } from './n8n-engine';

export const TYPES = {
	listModels: `${PACKAGE}.renderServiceListModels`,
	generateMedia: `${PACKAGE}.renderServiceGenerateMedia`,
	trigger: `${PACKAGE}.renderServiceTrigger`,
	manualTrigger: 'n8n-nodes-base.manualTrigger',
} as const;

export const CREDENTIAL_REF = {
	renderServiceApi: { id: 'cred-1', name: 'Render Service Emulator' },
};

export function emulatorCredentials(emulator: RunningEmulator, apiKey = emulator.apiKey) {
	return { apiKey, baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl };
}

export function createRenderEngine(emulator: RunningEmulator, apiKey?: string): N8nEngine {
	return createN8nEngine({
		nodeTypes: [
			{ type: TYPES.listModels, nodeType: new RenderServiceListModels() },
			{ type: TYPES.generateMedia, nodeType: new RenderServiceGenerateMedia() },
			{ type: TYPES.trigger, nodeType: new RenderServiceTrigger() },
		],
		credentialTypes: [new RenderServiceApi()],
		credentials: { renderServiceApi: emulatorCredentials(emulator, apiKey) },
	});
}

/** A Render Service node with the test credential attached. */
export function renderNode(
	name: string,
	type: string,
	parameters: INode['parameters'],
	extra: Partial<INode> = {},
): INode {
	return node(name, type, parameters, { credentials: CREDENTIAL_REF, ...extra });
}

/** Default Generate Media parameters for a quick flux/schnell image. */
export function generateParams(overrides: INode['parameters'] = {}): INode['parameters'] {
	return {
		modality: 'image',
		family: 'flux',
		model: 'schnell',
		task: 't2i',
		format: '512',
		prompt: 'a lighthouse at dawn',
		...overrides,
	};
}

export function prompts(count: number): INodeExecutionData[] {
	return Array.from({ length: count }, (_v, i) => ({ json: { prompt: `picture number ${i}` } }));
}

/** Bytes of a binary property as stored by n8n (in memory mode: base64 `data`). */
export function binaryBytes(item: INodeExecutionData, property = 'data'): Buffer {
	const binary = item.binary?.[property];
	if (!binary) throw new Error(`No binary property ${property}`);
	return Buffer.from(binary.data, 'base64');
}
