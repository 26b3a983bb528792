import {
	NodeConnectionTypes,
	type INodeType,
	type INodeTypeDescription,
	type ITriggerFunctions,
	type IRun,
	type ITriggerResponse,
} from 'n8n-workflow';

import type { WaitMode } from '../../../core/types';
import { connect } from '../shared/client';
import { JobLedger } from '../shared/ledger';
import { longLivedContext } from './long-lived-context';
import { LedgerWatcher } from './watcher';

/**
 * How long deactivation waits for executions this trigger started to end. n8n closes triggers
 * before it waits for running executions on shutdown, and force-exits after its own grace period
 * (N8N_GRACEFUL_SHUTDOWN_TIMEOUT, 30 s by default); this stays below it.
 */
const DRAIN_MS = 25_000;

export class RenderServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Render Service Trigger',
		name: 'renderServiceTrigger',
		icon: {
			light: 'file:../../../icons/renderServiceTrigger.svg',
			dark: 'file:../../../icons/renderServiceTrigger.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["includeFailed"] ? "Completed or failed jobs" : "Completed jobs"}}',
		description:
			'Starts the workflow when a Render Service job submitted with "Submit Only" is done',
		defaults: { name: 'Render Service Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'renderServiceApi', required: true }],
		properties: [
			{
				displayName:
					'Fires once for every job that a Generate Media node submitted in "Submit Only" mode in any workflow of this n8n instance, with a credential of the same Async URL. Jobs still running when n8n stops fire after it starts again. If n8n crashes while a workflow this trigger started is running, that job fires again after the restart (marked redelivered).',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Fire for Failed Jobs',
				name: 'includeFailed',
				type: 'boolean',
				default: false,
				description:
					'Whether failed or cancelled jobs also start the workflow, with the error instead of a file',
			},
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				hint: 'The name of the output binary field to put the file in',
			},
			{
				displayName: 'Wait Strategy',
				name: 'waitStrategy',
				type: 'options',
				options: [
					{
						name: 'Auto',
						value: 'auto',
						description: 'Listen for server-sent events, fall back to polling if they stop working',
					},
					{ name: 'Server-Sent Events', value: 'sse' },
					{ name: 'Polling', value: 'poll' },
				],
				default: 'auto',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Check for New Jobs Every (Seconds)',
						name: 'rescanSeconds',
						type: 'number',
						typeOptions: { minValue: 0.2 },
						default: 5,
						description: 'How often the list of submitted jobs is read again',
					},
					{
						displayName: 'Max Jobs Watched at Once',
						name: 'maxParallel',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 256 },
						default: 16,
						description: 'More pending jobs wait their turn',
					},
				],
			},
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const { client, credentials } = await connect(await longLivedContext(this));
		const options = this.getNodeParameter('options', {}) as {
			rescanSeconds?: number;
			maxParallel?: number;
		};
		const manual = this.getMode() === 'manual';
		const workflowId = this.getWorkflow().id ?? 'unknown';
		const watcher = new LedgerWatcher({
			ledger: new JobLedger(),
			client,
			asyncUrl: credentials.asyncUrl,
			waitMode: this.getNodeParameter('waitStrategy', 'auto') as WaitMode,
			includeFailed: this.getNodeParameter('includeFailed', false) as boolean,
			binaryPropertyName: this.getNodeParameter('binaryPropertyName', 'data') as string,
			rescanMs: Math.max(200, (options.rescanSeconds ?? 5) * 1000),
			maxParallel: options.maxParallel ?? 16,
			waitSliceMs: 10 * 60 * 1000,
			claim: !manual,
			subscriber: `${workflowId}/${this.getNode().id}`,
			prepareBinaryData: async (data, fileName, mimeType) =>
				await this.helpers.prepareBinaryData(data, fileName, mimeType),
			drainMs: DRAIN_MS,
			emit: (item) => {
				if (manual) {
					// A test run needs no done promise: it does not claim the job.
					this.emit([[item]]);
					return Promise.resolve();
				}
				const ended = this.helpers.createDeferredPromise<IRun>();
				this.emit([[item]], undefined, ended);
				return ended.promise;
			},
			warn: (message) => this.logger.warn(message),
		});
		watcher.start();
		if (manual) {
			// A test run needs one event only; stop watching once it has fired.
			void watcher.settled.then(async () => await watcher.stop());
		}
		return { closeFunction: async () => await watcher.stop() };
	}
}
