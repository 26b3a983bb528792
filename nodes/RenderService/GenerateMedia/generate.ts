/**
 * One item of Generate Media: read its parameters (expressions resolved per item), validate
 * through the core, then submit and either record the job for the trigger or wait for it and
 * output the file. Waiting, retries and downloads are the core's; this file only maps them to
 * n8n items.
 */
import {
	NodeOperationError,
	type IBinaryData,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import type { RenderClient } from '../../../core/api';
import type {
	GenerationRequest,
	OnTimeout,
	SubmittedJob,
	WaitMode,
	WaitOutcome,
} from '../../../core/types';
import type { RenderCredentials } from '../shared/client';
import { JobLedger, type LedgerEntry } from '../shared/ledger';

export interface GenerateDeps {
	client: RenderClient;
	credentials: RenderCredentials;
	ledger: JobLedger;
	signal?: AbortSignal;
}

type Settings = { steps?: number; guidance?: number; backend?: string; seed?: number };

function iso(epochMs: number): string {
	return new Date(epochMs).toISOString();
}

async function inputImage(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<GenerationRequest['image']> {
	const property = context.getNodeParameter('inputImageProperty', itemIndex, 'data') as string;
	const binary: IBinaryData = context.helpers.assertBinaryData(itemIndex, property);
	const data = await context.helpers.getBinaryDataBuffer(itemIndex, property);
	return { data: new Uint8Array(data), mimeType: binary.mimeType };
}

export async function readRequest(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<GenerationRequest> {
	const text = (name: string, fallback = '') =>
		String(context.getNodeParameter(name, itemIndex, fallback) ?? '').trim();
	const request: GenerationRequest = {
		modality: text('modality', 'image'),
		family: text('family'),
		model: text('model'),
		task: text('task', 't2i'),
		format: text('format'),
		prompt: String(context.getNodeParameter('prompt', itemIndex, '') ?? ''),
	};
	const settings = context.getNodeParameter('settings', itemIndex, {}) as Settings;
	if (settings.steps !== undefined) request.steps = Number(settings.steps);
	if (settings.guidance !== undefined) request.guidance = Number(settings.guidance);
	if (settings.backend) request.backend = String(settings.backend);
	if (settings.seed !== undefined) request.seed = Number(settings.seed);
	if (request.task === 'i2i') request.image = await inputImage(context, itemIndex);
	return request;
}

function describeJob(request: GenerationRequest, job: SubmittedJob): IDataObject {
	return {
		jobId: job.jobId,
		modality: request.modality,
		family: request.family,
		model: request.model,
		task: request.task,
		format: request.format,
		prompt: request.prompt,
		jobUrl: job.jobUrl,
		idempotencyKey: job.idempotencyKey,
		submittedAt: iso(job.submittedAt),
	};
}

function ledgerEntry(
	context: IExecuteFunctions,
	deps: GenerateDeps,
	request: GenerationRequest,
	job: SubmittedJob,
): LedgerEntry {
	const workflow = context.getWorkflow();
	return {
		version: 1,
		jobId: job.jobId,
		asyncUrl: deps.credentials.asyncUrl,
		baseUrl: deps.credentials.baseUrl,
		jobUrl: job.jobUrl,
		idempotencyKey: job.idempotencyKey,
		modality: request.modality,
		family: request.family,
		model: request.model,
		task: request.task,
		format: request.format,
		prompt: request.prompt,
		submittedAt: iso(job.submittedAt),
		workflowId: workflow.id,
		workflowName: workflow.name,
		executionId: context.getExecutionId(),
		nodeName: context.getNode().name,
	};
}

async function outputResult(
	context: IExecuteFunctions,
	deps: GenerateDeps,
	itemIndex: number,
	base: IDataObject,
	outcome: Extract<WaitOutcome, { kind: 'complete' }>,
): Promise<INodeExecutionData> {
	const json: IDataObject = {
		...base,
		status: 'complete',
		completedAt: new Date().toISOString(),
		waitedMs: outcome.waitedMs,
		waitedVia: outcome.via,
	};
	const output = context.getNodeParameter('output', itemIndex, 'binary') as string;
	if (output === 'url') {
		return { json: { ...json, url: outcome.resultUrl }, pairedItem: { item: itemIndex } };
	}
	const property = context.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string;
	const file = await deps.client.download(outcome.jobId, outcome.resultUrl, {
		signal: deps.signal,
	});
	// A stream, so a large video never sits whole in memory when n8n stores binaries on disk.
	const binary = await context.helpers.prepareBinaryData(
		file.stream as unknown as Buffer,
		file.fileName,
		file.mimeType,
	);
	json.fileName = file.fileName;
	json.mimeType = file.mimeType;
	json.fileSize = binary.bytes ?? file.size;
	return { json, binary: { [property]: binary }, pairedItem: { item: itemIndex } };
}

/** Reads and validates one item; runs for every item before any job is submitted. */
export async function prepareItem(
	context: IExecuteFunctions,
	deps: GenerateDeps,
	itemIndex: number,
): Promise<PreparedItem> {
	const request = await readRequest(context, itemIndex);
	const wait = readWaitSettings(context, itemIndex);
	const { warnings } = await deps.client.validate(request, { signal: deps.signal });
	return { request, warnings, wait };
}

export interface PreparedItem {
	request: GenerationRequest;
	warnings: string[];
	/** Undefined in Submit Only mode. */
	wait?: WaitSettings;
}

interface WaitSettings {
	mode: WaitMode;
	timeoutMs: number;
	onTimeout: OnTimeout;
}

/** Checked before submitting, so a bad timeout never leaves a paid job behind an error. */
function readWaitSettings(context: IExecuteFunctions, itemIndex: number): WaitSettings | undefined {
	if (context.getNodeParameter('mode', itemIndex, 'wait') === 'submit') return undefined;
	const timeoutSeconds = Number(context.getNodeParameter('timeoutSeconds', itemIndex, 600));
	if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
		throw new NodeOperationError(context.getNode(), 'The timeout must be a positive number', {
			itemIndex,
			description: 'Set Timeout (Seconds) to 1 or more; the default is 600 (10 minutes).',
		});
	}
	return {
		mode: context.getNodeParameter('waitStrategy', itemIndex, 'auto') as WaitMode,
		timeoutMs: timeoutSeconds * 1000,
		onTimeout: context.getNodeParameter('onTimeout', itemIndex, 'fail') as OnTimeout,
	};
}

/** The job is paid for: a ledger that cannot be written must still name it. */
async function recordForTrigger(
	context: IExecuteFunctions,
	deps: GenerateDeps,
	itemIndex: number,
	entry: LedgerEntry,
): Promise<void> {
	try {
		await deps.ledger.record(entry);
	} catch (error) {
		throw new NodeOperationError(
			context.getNode(),
			`Job ${entry.jobId} was submitted, but it could not be recorded for the Render Service Trigger`,
			{
				itemIndex,
				description: `The job runs on the service; collect it by its ID. Check that n8n can write to its user folder (${(error as Error).message}).`,
			},
		);
	}
}

export async function generateItem(
	context: IExecuteFunctions,
	deps: GenerateDeps,
	itemIndex: number,
	{ request, warnings, wait }: PreparedItem,
): Promise<INodeExecutionData> {
	const { client, signal } = deps;
	const job = await client.submit(request, { signal, skipValidation: true });
	const allWarnings = [...warnings, ...job.warnings.filter((w) => !warnings.includes(w))];
	const base = { ...describeJob(request, job), warnings: allWarnings };

	if (!wait) {
		await recordForTrigger(context, deps, itemIndex, ledgerEntry(context, deps, request, job));
		const json: IDataObject = { ...base, status: job.status };
		if (job.queuePosition !== undefined) json.queuePosition = job.queuePosition;
		return { json, pairedItem: { item: itemIndex } };
	}

	const outcome = await client.wait(job.jobId, { ...wait, signal });
	if (outcome.kind === 'timed_out') {
		return {
			json: {
				...base,
				status: 'timed_out',
				lastStatus: outcome.lastStatus,
				cancelled: outcome.cancelled,
				waitedMs: outcome.waitedMs,
			},
			pairedItem: { item: itemIndex },
		};
	}
	return await outputResult(context, deps, itemIndex, base, outcome);
}
