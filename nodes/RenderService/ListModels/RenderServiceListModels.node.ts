import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import type { Model } from '../../../core/types';
import { connect } from '../shared/client';
import { toNodeError } from '../shared/errors';
import { getAllFamilies, getAllModalities } from '../shared/load-options';

/** A model as one flat n8n item: camelCase names, `info` lifted to the top. */
export function modelToJson(model: Model): IDataObject {
	const json: IDataObject = {
		family: model.family,
		model: model.model,
		modality: model.modality,
		status: model.status,
		tasks: model.tasks,
		formats: model.formats,
		backends: model.backends,
		defaultBackend: model.default_backend,
	};
	if (model.info.parameters !== undefined) json.parameters = model.info.parameters;
	if (model.info.default_steps !== undefined) json.defaultSteps = model.info.default_steps;
	if (model.info.fixed_steps !== undefined) json.fixedSteps = model.info.fixed_steps;
	if (model.info.guidance_range) {
		json.guidanceMin = model.info.guidance_range[0];
		json.guidanceMax = model.info.guidance_range[1];
	}
	return json;
}

export class RenderServiceListModels implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Render Service: List Models',
		name: 'renderServiceListModels',
		icon: {
			light: 'file:../../../icons/renderService.svg',
			dark: 'file:../../../icons/renderService.dark.svg',
		},
		group: ['input'],
		version: 1,
		subtitle: '={{$parameter["family"] ? $parameter["family"] : "All families"}}',
		description: 'List the Render Service models and what each can do',
		defaults: { name: 'List Models' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'renderServiceApi', required: true }],
		properties: [
			{
				displayName: 'Family Name or ID',
				name: 'family',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getAllFamilies' },
				default: '',
				description:
					'Only models of this family. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Modality Name or ID',
				name: 'modality',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getAllModalities' },
				default: '',
				description:
					'Only models that produce this kind of media. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Status',
				name: 'statuses',
				type: 'multiOptions',
				options: [
					{ name: 'Active', value: 'active' },
					{ name: 'Beta', value: 'beta' },
					{ name: 'Coming Soon', value: 'coming_soon' },
					{ name: 'Deprecated', value: 'deprecated' },
				],
				default: [],
				description: 'Only models with one of these statuses. Leave empty for any status.',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{
						name: 'One Item per Model',
						value: 'perModel',
						description: 'Each model becomes its own item',
					},
					{
						name: 'One Item With the List',
						value: 'list',
						description: 'A single item with a "models" array and a "count"',
					},
				],
				default: 'perModel',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Bypass Cache',
						name: 'fresh',
						type: 'boolean',
						default: false,
						description:
							'Whether to ask the service again instead of using the list fetched in the last 5 minutes',
					},
				],
			},
		],
	};

	methods = { loadOptions: { getAllFamilies, getAllModalities } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { client, secrets } = await connect(this);
		const signal = this.getExecutionCancelSignal();
		const returnData: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const family = this.getNodeParameter('family', itemIndex, '') as string;
				const modality = this.getNodeParameter('modality', itemIndex, '') as string;
				const statuses = this.getNodeParameter('statuses', itemIndex, []) as string[];
				const output = this.getNodeParameter('output', itemIndex, 'perModel') as string;
				const { fresh = false } = this.getNodeParameter('options', itemIndex, {}) as {
					fresh?: boolean;
				};
				const models = (
					await client.listModels(
						{ family: family || undefined, modality: modality || undefined },
						{ signal, fresh },
					)
				).filter((model) => statuses.length === 0 || statuses.includes(model.status));
				const list = models.map(modelToJson);
				if (output === 'list') {
					returnData.push({
						json: { models: list, count: list.length },
						pairedItem: { item: itemIndex },
					});
				} else {
					for (const json of list) returnData.push({ json, pairedItem: { item: itemIndex } });
				}
			} catch (error) {
				const nodeError = toNodeError(this.getNode(), error, { itemIndex, secrets });
				if (this.continueOnFail() && !signal?.aborted) {
					returnData.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
					continue;
				}
				throw nodeError;
			}
		}
		return [returnData];
	}
}
