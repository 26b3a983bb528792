import type { INodeProperties } from 'n8n-workflow';

const waitOnly = { show: { mode: ['wait'] } };

export const modelProperties: INodeProperties[] = [
	{
		displayName: 'Modality Name or ID',
		name: 'modality',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getModalities' },
		default: 'image',
		required: true,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	{
		displayName: 'Family Name or ID',
		name: 'family',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getFamilies', loadOptionsDependsOn: ['modality'] },
		default: '',
		required: true,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	{
		displayName: 'Model Name or ID',
		name: 'model',
		type: 'options',
		typeOptions: {
			loadOptionsMethod: 'getModels',
			loadOptionsDependsOn: ['modality', 'family'],
		},
		default: '',
		required: true,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		hint: "Each model's description in the list shows its steps, guidance range and backends",
	},
	{
		displayName: 'Task Name or ID',
		name: 'task',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getTasks', loadOptionsDependsOn: ['family', 'model'] },
		default: 't2i',
		required: true,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	{
		displayName: 'Format Name or ID',
		name: 'format',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getFormats', loadOptionsDependsOn: ['family', 'model'] },
		default: '',
		required: true,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. A lighthouse on a cliff at dawn, oil painting',
		description: 'What to generate',
	},
	{
		displayName: 'Input Image Field',
		name: 'inputImageProperty',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { task: ['i2i'] } },
		hint: 'The name of the input field holding the binary image to change',
		description: 'Binary field of the incoming item that holds the image for image-to-image',
	},
];

export const modeProperties: INodeProperties[] = [
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Wait for Result',
				value: 'wait',
				description: 'Submit the job, wait until it is done and output the file',
			},
			{
				name: 'Submit Only',
				value: 'submit',
				description:
					'Submit the job and output its ID at once; a Render Service Trigger delivers the file later',
			},
		],
		default: 'wait',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		displayOptions: waitOnly,
		options: [
			{ name: 'Binary File', value: 'binary', description: 'Download the file into the item' },
			{
				name: 'URL',
				value: 'url',
				description: 'Output a signed download link instead (it expires after a while)',
			},
		],
		default: 'binary',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { mode: ['wait'], output: ['binary'] } },
		hint: 'The name of the output binary field to put the file in',
	},
	{
		displayName: 'Wait Strategy',
		name: 'waitStrategy',
		type: 'options',
		displayOptions: waitOnly,
		options: [
			{
				name: 'Auto',
				value: 'auto',
				description: 'Listen for server-sent events, fall back to polling if they stop working',
			},
			{ name: 'Server-Sent Events', value: 'sse', description: 'Only listen for events' },
			{ name: 'Polling', value: 'poll', description: 'Only ask the job for its status' },
		],
		default: 'auto',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		displayOptions: waitOnly,
		default: 600,
		description: 'How long to wait for each job before the On Timeout choice applies',
	},
	{
		displayName: 'On Timeout',
		name: 'onTimeout',
		type: 'options',
		displayOptions: waitOnly,
		options: [
			{
				name: 'Fail With the Job ID',
				value: 'fail',
				description: 'Stop with an error that names the job, so it can be looked up later',
			},
			{
				name: 'Output the Job as Timed Out',
				value: 'return',
				description: 'Output the item with status "timed_out"; the job keeps running',
			},
			{
				name: 'Cancel the Job',
				value: 'cancel',
				description: 'Ask the service to cancel the job, then output it as timed out',
			},
		],
		default: 'fail',
	},
];

export const settingsProperties: INodeProperties[] = [
	{
		displayName: 'Generation Settings',
		name: 'settings',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		description:
			'Only some models take these; the model description shows which, with their defaults and bounds',
		options: [
			{
				displayName: 'Backend Name or ID',
				name: 'backend',
				type: 'options',
				typeOptions: {
					loadOptionsMethod: 'getBackends',
					loadOptionsDependsOn: ['family', 'model'],
				},
				default: '',
				description:
					'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
			},
			{
				displayName: 'Guidance',
				name: 'guidance',
				type: 'number',
				typeOptions: { numberPrecision: 2 },
				default: 3.5,
				description:
					"How closely to follow the prompt. Only for models with a guidance range (see the model's description); must lie within it.",
			},
			{
				displayName: 'Seed',
				name: 'seed',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description: 'Fixes the randomness, so the same inputs give the same result',
			},
			{
				displayName: 'Steps',
				name: 'steps',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 28,
				description:
					"Number of denoising steps. Only for models with adjustable steps; leave unset to use the model's default (see the model's description).",
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Max Parallel Jobs',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 64 },
				default: 4,
				description: 'How many items are generated at the same time',
			},
		],
	},
];
