/**
 * Runs n8n nodes inside n8n's real execution engine, in process: `n8n-core`'s
 * `WorkflowExecute` with the real `n8n-workflow` `Workflow`, real expression resolution, real
 * `httpRequestWithAuthentication` and `prepareBinaryData`. Only the pieces n8n's server
 * normally provides (node type registry, credential store, lifecycle hooks) are stubbed here,
 * the same way n8n's own `NodeTestHarness` does it.
 *
 * Reused by the e2e and fault-injection tests: see `createN8nEngine`.
 */
import 'reflect-metadata';
import { dirname } from 'node:path';

import {
	BinaryDataService,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	TriggerContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	ICredentialsHelper,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IConnections,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IRunExecutionData,
	type ITriggerFunctions,
	type ITriggerResponse,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

/**
 * Switches n8n's binary data to its filesystem mode in `dir`, as n8n runs by default in
 * production, so `prepareBinaryData` streams files to disk instead of holding base64 in the
 * item. Returns a reader for the stored bytes. n8n-core resolves its own copy of `@n8n/di`,
 * so the service is registered in that container.
 */
export async function useFilesystemBinaryData(dir: string) {
	const coreDir = dirname(require.resolve('n8n-core'));
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Container } = require(require.resolve('@n8n/di', { paths: [coreDir] })) as {
		Container: { set(type: unknown, value: unknown): void; reset?: () => void };
	};
	const quiet = { error() {}, warn() {}, info() {}, debug() {} };
	const config = { mode: 'filesystem', localStoragePath: dir, availableModes: ['filesystem'] };
	const service = new BinaryDataService(config as never, quiet as never, quiet as never);
	await service.init();
	Container.set(BinaryDataService, service);
	return {
		read: async (binary: { id?: string; data: string }) =>
			await service.getAsBuffer(binary as never),
		/** Back to n8n's in-memory default for later tests in the same worker. */
		restore: () => {
			const memory = new BinaryDataService(
				{ mode: 'default', availableModes: ['default'] } as never,
				quiet as never,
				quiet as never,
			);
			Container.set(BinaryDataService, memory);
		},
	};
}

/** n8n's done promise for an emit, as `ITriggerFunctions.emit` declares it. */
type DonePromise = NonNullable<Parameters<ITriggerFunctions['emit']>[2]>;

/** Type names as n8n registers them for this package. */
export const PACKAGE = '@render-service/n8n-nodes-render';

export interface EngineNodeType {
	/** Full type name, e.g. `@render-service/n8n-nodes-render.renderServiceListModels`. */
	type: string;
	nodeType: INodeType;
}

export interface N8nEngineOptions {
	nodeTypes: EngineNodeType[];
	credentialTypes?: ICredentialType[];
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
}

export interface RunOptions {
	nodes: INode[];
	connections?: IConnections;
	/** Node that receives `input` (default: the first node). */
	startNode?: string;
	/** Items handed to the start node. Default: one empty item. */
	input?: INodeExecutionData[];
	mode?: WorkflowExecuteMode;
	/** Called with a function that cancels the execution, like the editor's Stop button. */
	onStarted?: (cancel: () => void) => void;
	workflowId?: string;
}

export interface RunResult {
	run: IRun;
	/** Items of a node's first output in its last run ([] when it did not run). */
	output(nodeName: string): INodeExecutionData[];
	/** The error a node ended with, if any. */
	nodeError(nodeName: string): (Error & IDataObject) | undefined;
}

export interface ActiveTrigger {
	response: ITriggerResponse;
	/** Everything the trigger emitted, in order. */
	emitted: INodeExecutionData[][][];
	errors: Error[];
	/**
	 * Executions started by an emit that asked to be told when they end (n8n's `donePromise`)
	 * and that `holdExecutions` keeps running. Auto-finished on the next tick otherwise.
	 */
	runningExecutions(): number;
	/** Ends the held executions, successfully or (with an error) as failed/cancelled. */
	finishExecutions(error?: Error): void;
	/** Resolves at the next emit (or the next error). */
	nextEmit(timeoutMs?: number): Promise<INodeExecutionData[][]>;
	close(): Promise<void>;
}

class StaticNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType>();

	constructor(list: EngineNodeType[]) {
		for (const { type, nodeType } of list) this.types.set(type, nodeType);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return this.get(nodeType);
	}

	getByNameAndVersion(nodeType: string): INodeType {
		return this.get(nodeType);
	}

	getKnownTypes() {
		return {};
	}

	private get(type: string): INodeType {
		const found = this.types.get(type);
		if (!found) throw new Error(`Unknown node type ${type} in the test engine`);
		return found;
	}
}

/** Resolves `={{$credentials.x}}`-style values of a generic `authenticate` block. */
function resolveCredentialTemplate(value: unknown, credentials: ICredentialDataDecryptedObject) {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	return value
		.slice(1)
		.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_m, key: string) =>
			String(credentials[key] ?? ''),
		);
}

class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: ICredentialType[],
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const type = this.types.find((t) => t.name === typeName);
		const auth = type?.authenticate;
		if (!auth) return requestOptions;
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		const headers = { ...(requestOptions.headers ?? {}) };
		for (const [name, value] of Object.entries(auth.properties.headers ?? {})) {
			headers[name] = resolveCredentialTemplate(value, credentials) as string;
		}
		return { ...requestOptions, headers };
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these tests');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.data[type];
		if (!found) throw new Error(`No test credentials of type ${type}`);
		return { ...found };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(): INodeProperties[] {
		return [];
	}

	setCredentials(type: string, data: ICredentialDataDecryptedObject) {
		this.data[type] = data;
	}
}

/**
 * A minimal stand-in for n8n's Manual Trigger that outputs `items()`: n8n runs a manual
 * execution from the trigger's pinned data, which this harness has no support for.
 */
export function manualTriggerOf(
	items: () => INodeExecutionData[],
	description = 'Test stand-in',
): EngineNodeType {
	return {
		type: 'n8n-nodes-base.manualTrigger',
		nodeType: {
			description: {
				displayName: 'Manual Trigger',
				name: 'manualTrigger',
				group: ['trigger'],
				version: 1,
				description,
				defaults: { name: 'Manual Trigger' },
				inputs: [],
				outputs: ['main'],
				properties: [],
			},
			async execute(this) {
				return [items()];
			},
		} as INodeType,
	};
}

/** The Manual Trigger every engine has: passes one empty item on. */
export const manualTriggerType = manualTriggerOf(() => [{ json: {} }]);

function createAdditionalData(
	credentialsHelper: ICredentialsHelper,
	hooks: ExecutionLifecycleHooks,
	executionId: string,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks,
		executionId,
		restApiUrl: 'http://localhost/rest',
		instanceBaseUrl: 'http://localhost/',
		formWaitingBaseUrl: 'http://localhost/form-waiting',
		webhookBaseUrl: 'http://localhost/webhook',
		webhookWaitingBaseUrl: 'http://localhost/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost/webhook-test',
		currentNodeParameters: undefined,
		variables: {},
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not supported by the test engine');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not supported by the test engine');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

let executionCounter = 0;

export function createN8nEngine(options: N8nEngineOptions) {
	const nodeTypes = new StaticNodeTypes([manualTriggerType, ...options.nodeTypes]);
	const credentialsHelper = new TestCredentialsHelper(options.credentialTypes ?? [], {
		...(options.credentials ?? {}),
	});

	function buildWorkflow(nodes: INode[], connections: IConnections = {}, id = 'wf-test') {
		return new Workflow({ id, name: id, nodes, connections, active: false, nodeTypes });
	}

	async function run(opts: RunOptions): Promise<RunResult> {
		const workflow = buildWorkflow(opts.nodes, opts.connections, opts.workflowId);
		const startName = opts.startNode ?? opts.nodes[0]?.name;
		const start = startName ? workflow.getNode(startName) : null;
		if (!start) throw new Error('The workflow has no start node');
		const executionId = String(++executionCounter);
		const hooks = new ExecutionLifecycleHooks(opts.mode ?? 'manual', executionId, {
			id: workflow.id,
			name: workflow.name ?? workflow.id,
			nodes: opts.nodes,
			connections: opts.connections ?? {},
			active: false,
			activeVersionId: null,
			isArchived: false,
			createdAt: new Date(),
			updatedAt: new Date(),
		});
		let resolveFinished: (run: IRun) => void = () => {};
		const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
		hooks.addHandler('workflowExecuteAfter', (full) => resolveFinished(full));
		const additionalData = createAdditionalData(credentialsHelper, hooks, executionId);
		const runExecutionData = {
			startData: {},
			resultData: { runData: {} },
			executionData: {
				contextData: {},
				metadata: {},
				nodeExecutionStack: [
					{ node: start, data: { main: [opts.input ?? [{ json: {} }]] }, source: null },
				],
				waitingExecution: {},
				waitingExecutionSource: {},
			},
		} as unknown as IRunExecutionData;
		const execute = new WorkflowExecute(additionalData, opts.mode ?? 'manual', runExecutionData);
		const running = execute.processRunExecutionData(workflow);
		opts.onStarted?.(() => running.cancel());
		await running;
		const result = await finished;
		return wrapResult(result);
	}

	function wrapResult(result: IRun): RunResult {
		const runData = result.data.resultData.runData;
		return {
			run: result,
			output(nodeName) {
				const runs = runData[nodeName];
				const last = runs?.[runs.length - 1];
				return last?.data?.main?.[0] ?? [];
			},
			nodeError(nodeName) {
				const runs = runData[nodeName];
				return runs?.[runs.length - 1]?.error as (Error & IDataObject) | undefined;
			},
		};
	}

	/** Calls a `loadOptions` method the way the editor does for one node. */
	async function loadOptions(
		node: INode,
		method: string,
		currentNodeParameters?: INode['parameters'],
	): Promise<INodePropertyOptions[]> {
		const workflow = buildWorkflow([node]);
		const nodeType = nodeTypes.getByNameAndVersion(node.type);
		const fn = nodeType.methods?.loadOptions?.[method];
		if (!fn) throw new Error(`No loadOptions method ${method}`);
		const hooks = new ExecutionLifecycleHooks('manual', 'load-options', {} as never);
		const additionalData = createAdditionalData(credentialsHelper, hooks, 'load-options');
		additionalData.currentNodeParameters = currentNodeParameters ?? node.parameters;
		const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
		return await fn.call(context);
	}

	/** Activates a trigger node like an active workflow does; emits are collected. */
	async function activateTrigger(
		node: INode,
		opts: {
			workflowId?: string;
			mode?: WorkflowExecuteMode;
			/** Keep executions "running" until `finishExecutions()` (a crash can hit them). */
			holdExecutions?: boolean;
		} = {},
	): Promise<ActiveTrigger> {
		const workflow = buildWorkflow([node], {}, opts.workflowId ?? 'wf-trigger');
		const hooks = new ExecutionLifecycleHooks('trigger', 'trigger', {} as never);
		const additionalData = createAdditionalData(credentialsHelper, hooks, 'trigger');
		const emitted: INodeExecutionData[][][] = [];
		const errors: Error[] = [];
		let waiters: Array<{
			resolve: (d: INodeExecutionData[][]) => void;
			reject: (e: Error) => void;
		}> = [];
		const running: Array<DonePromise> = [];
		const finish = (done: DonePromise, error?: Error) => {
			if (error) return done.reject(error);
			done.resolve({
				mode: opts.mode ?? 'trigger',
				startedAt: new Date(),
				status: 'success',
				finished: true,
				data: { resultData: { runData: {} } },
			} as unknown as IRun);
		};
		// Like n8n's ActiveWorkflowManager: the done promise settles when the execution has ended.
		const emit = (
			data: INodeExecutionData[][],
			_responsePromise?: unknown,
			donePromise?: DonePromise,
		) => {
			emitted.push(data);
			if (donePromise && opts.holdExecutions) running.push(donePromise);
			else if (donePromise) setImmediate(() => finish(donePromise));
			const current = waiters;
			waiters = [];
			for (const w of current) w.resolve(data);
		};
		const emitError = (error: Error) => {
			errors.push(error);
			const current = waiters;
			waiters = [];
			for (const w of current) w.reject(error);
		};
		const context = new TriggerContext(
			workflow,
			workflow.getNode(node.name)!,
			additionalData,
			opts.mode ?? 'trigger',
			'activate',
			emit,
			emitError,
			(error) => emitError(error as Error),
		);
		const nodeType = nodeTypes.getByNameAndVersion(node.type);
		if (!nodeType.trigger) throw new Error(`${node.type} is not a trigger`);
		const response = (await nodeType.trigger.call(context)) ?? {};
		return {
			response,
			emitted,
			errors,
			runningExecutions: () => running.length,
			finishExecutions(error) {
				for (const done of running.splice(0)) finish(done, error);
			},
			nextEmit(timeoutMs = 15_000) {
				return new Promise((resolve, reject) => {
					const timer = setTimeout(
						() => reject(new Error('The trigger did not emit in time')),
						timeoutMs,
					);
					waiters.push({
						resolve: (d) => {
							clearTimeout(timer);
							resolve(d);
						},
						reject: (e) => {
							clearTimeout(timer);
							reject(e);
						},
					});
				});
			},
			async close() {
				await response.closeFunction?.();
			},
		};
	}

	return {
		nodeTypes,
		run,
		loadOptions,
		activateTrigger,
		setCredentials: (type: string, data: ICredentialDataDecryptedObject) =>
			credentialsHelper.setCredentials(type, data),
	};
}

export type N8nEngine = ReturnType<typeof createN8nEngine>;

/** Shorthand to build a workflow node. */
export function node(
	name: string,
	type: string,
	parameters: INode['parameters'] = {},
	extra: Partial<INode> = {},
): INode {
	return {
		id: `${name.replace(/\W+/g, '-').toLowerCase()}-id`,
		name,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		...extra,
	};
}

/** `connections` for a straight chain of node names. */
export function chain(...names: string[]): IConnections {
	const connections: IConnections = {};
	for (let i = 0; i + 1 < names.length; i++) {
		connections[names[i]!] = { main: [[{ node: names[i + 1]!, type: 'main', index: 0 }]] };
	}
	return connections;
}
