/**
 * Runs the demo's n8n workflow headless inside n8n's real engine (n8n-core's WorkflowExecute,
 * through the in-process harness of the integration tests), with this package's nodes loaded
 * from dist/ the way n8n loads them from package.json's `n8n` block.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
	ICredentialType,
	IConnections,
	INode,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';
import {
	createN8nEngine,
	manualTriggerOf,
	PACKAGE,
	type EngineNodeType,
} from '../../test/helpers/n8n-engine';
import { REPO_ROOT } from './paths';
import { slug, type DemoRow } from './report';

export interface N8nWorkflowFile {
	name: string;
	nodes: INode[];
	connections: IConnections;
	pinData?: Record<string, INodeExecutionData[]>;
}

export interface EmulatorAccess {
	apiKey: string;
	baseUrl: string;
	asyncUrl: string;
}

type Constructor<T> = new () => T;

/** The first class a built file exports, instantiated. */
function instantiate<T>(file: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(join(REPO_ROOT, file)) as Record<string, Constructor<T>>;
	const Class = Object.values(exported).find((value) => typeof value === 'function');
	if (!Class) throw new Error(`${file} exports no class`);
	return new Class();
}

interface PackageN8nBlock {
	n8n: { nodes: string[]; credentials: string[] };
}

async function packageTypes(): Promise<{
	nodes: EngineNodeType[];
	credentials: ICredentialType[];
}> {
	const pkg = JSON.parse(
		await readFile(join(REPO_ROOT, 'package.json'), 'utf8'),
	) as PackageN8nBlock;
	const nodes = pkg.n8n.nodes.map((file) => {
		const nodeType = instantiate<INodeType>(file);
		return { type: `${PACKAGE}.${nodeType.description.name}`, nodeType };
	});
	return { nodes, credentials: pkg.n8n.credentials.map((f) => instantiate<ICredentialType>(f)) };
}

/** The workflow's Manual Trigger, outputting its pinned items as n8n's manual run does. */
function pinnedTrigger(items: INodeExecutionData[]): EngineNodeType {
	return manualTriggerOf(() => items, 'Outputs the pinned items');
}

export async function loadWorkflow(file: string): Promise<N8nWorkflowFile> {
	return JSON.parse(await readFile(file, 'utf8')) as N8nWorkflowFile;
}

/** Runs the workflow; writes each binary file of the last node to `outDir`. */
export async function runN8nWorkflow(
	workflow: N8nWorkflowFile,
	emulator: EmulatorAccess,
	outDir: string,
): Promise<DemoRow[]> {
	const trigger = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (!trigger) throw new Error(`${workflow.name} has no Manual Trigger`);
	const types = await packageTypes();
	const engine = createN8nEngine({
		nodeTypes: [pinnedTrigger(workflow.pinData?.[trigger.name] ?? [{ json: {} }]), ...types.nodes],
		credentialTypes: types.credentials,
		credentials: { renderServiceApi: { ...emulator } },
	});
	const result = await engine.run({
		nodes: workflow.nodes,
		connections: workflow.connections,
		startNode: trigger.name,
		workflowId: 'demo',
	});
	const error = result.run.data.resultData.error;
	if (error) throw new Error(`n8n workflow "${workflow.name}" failed: ${error.message}`);
	const last = lastNode(workflow);
	const rows: DemoRow[] = [];
	for (const item of result.output(last)) rows.push(await saveItem(item, outDir));
	return rows;
}

/** The node nothing connects onward from: where the workflow's results come out. */
function lastNode(workflow: N8nWorkflowFile): string {
	const sources = new Set(Object.keys(workflow.connections));
	const end = workflow.nodes.find((n) => !sources.has(n.name));
	if (!end) throw new Error(`${workflow.name} has no last node`);
	return end.name;
}

async function saveItem(item: INodeExecutionData, outDir: string): Promise<DemoRow> {
	const json = item.json;
	const binary = item.binary?.data;
	if (!binary) throw new Error(`Generate Media returned no file: ${JSON.stringify(json)}`);
	const prompt = String(json.prompt ?? '');
	const extension = binary.fileExtension ?? String(binary.mimeType).split('/')[1] ?? 'bin';
	const file = join(outDir, `n8n-${slug(prompt)}.${extension}`);
	await writeFile(file, Buffer.from(binary.data, 'base64'));
	return {
		engine: 'n8n (in-process engine)',
		model: `${String(json.family)}/${String(json.model)}`,
		format: String(json.format),
		waitMode: String(json.waitedVia),
		seconds: Number(json.waitedMs) / 1000,
		file,
		prompt,
	};
}
