import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import {
	DEFAULT_CONCURRENCY,
	mapWithConcurrency,
	type ItemResult,
} from '../../../core/concurrency';
import { connect } from '../shared/client';
import { jobIdOf, toNodeError } from '../shared/errors';
import { JobLedger } from '../shared/ledger';
import {
	getBackends,
	getFamilies,
	getFormats,
	getModalities,
	getModels,
	getTasks,
} from '../shared/load-options';
import { modelProperties, modeProperties, settingsProperties } from './description';
import { generateItem, prepareItem, type PreparedItem } from './generate';

export class RenderServiceGenerateMedia implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Render Service: Generate Media',
		name: 'renderServiceGenerateMedia',
		icon: {
			light: 'file:../../../icons/renderService.svg',
			dark: 'file:../../../icons/renderService.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["mode"] === "submit" ? "Submit: " : ""}}{{$parameter["family"]}} {{$parameter["model"]}}',
		description: 'Generate an image or video from a text prompt with a Render Service model',
		defaults: { name: 'Generate Media' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'renderServiceApi', required: true }],
		properties: [...modelProperties, ...modeProperties, ...settingsProperties],
	};

	methods = {
		loadOptions: { getModalities, getFamilies, getModels, getTasks, getFormats, getBackends },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { client, credentials, secrets } = await connect(this);
		const signal = this.getExecutionCancelSignal();
		const deps = { client, credentials, ledger: new JobLedger(), signal };
		const { concurrency = DEFAULT_CONCURRENCY } = this.getNodeParameter('options', 0, {}) as {
			concurrency?: number;
		};

		// Every item is checked before the first job is sent, so a typo in item 7 does not leave
		// six paid jobs behind a failed execution.
		const prepared: Array<ItemResult<PreparedItem>> = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				prepared.push({ ok: true, value: await prepareItem(this, deps, itemIndex) });
			} catch (error) {
				if (!this.continueOnFail() || signal?.aborted) {
					throw toNodeError(this.getNode(), error, { itemIndex, secrets });
				}
				prepared.push({ ok: false, error });
			}
		}

		const results = await mapWithConcurrency(prepared, concurrency, async (ready, itemIndex) => {
			if (signal?.aborted) throw signal.reason;
			if (!ready.ok) throw ready.error;
			return await generateItem(this, deps, itemIndex, ready.value);
		});

		const returnData: INodeExecutionData[] = [];
		for (const [itemIndex, result] of results.entries()) {
			if (result.ok) {
				returnData.push(result.value);
				continue;
			}
			const error = toNodeError(this.getNode(), result.error, { itemIndex, secrets });
			// A cancelled execution ends here, whatever continueOnFail says.
			if (!this.continueOnFail() || signal?.aborted) throw error;
			const jobId = jobIdOf(result.error) ?? jobIdOf(error);
			returnData.push({
				json: {
					error: error.message,
					...(error.description ? { errorDescription: error.description } : {}),
					...(jobId ? { jobId } : {}),
				},
				pairedItem: { item: itemIndex },
			});
		}
		return [returnData];
	}
}
