/**
 * render-generate: submits a generation job and either waits for the file or emits the job ID
 * at once (to be completed later by render-job).
 */
import type { RenderClient } from '../core/api';
import type { GenerationRequest, SubmittedJob } from '../core/types';
import { clientSource } from './lib/client-for-node';
import { translator } from './lib/i18n';
import type { Translate } from './lib/i18n';
import { positiveInt } from './lib/limiter';
import { deliver } from './lib/output';
import type { NodeAPI, NodeDef, NodeMessage, RedNode } from './lib/red';
import { completeRequest, describeRequest, draftRequest } from './lib/request';
import type { GenerateSettings } from './lib/request';
import { DEFAULT_CONCURRENCY, waitSettings, withMessage } from './lib/wait-settings';
import type { WaitSettings } from './lib/wait-settings';
import { timedOutResult } from './lib/timeout';
import { startWorker } from './lib/worker';
import type { WorkContext, WorkResult } from './lib/worker';

const TYPE = 'render-generate';

function generateSettings(def: NodeDef): GenerateSettings {
	const s = (name: string): string => {
		const value = def[name];
		return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
	};
	return {
		modality: s('modality'),
		family: s('family'),
		model: s('model'),
		task: s('task'),
		format: s('format'),
		prompt: s('prompt'),
		steps: s('steps'),
		guidance: s('guidance'),
		backend: s('backend'),
		seed: s('seed'),
	};
}

function jobInfo(job: SubmittedJob, request: GenerationRequest): Record<string, unknown> {
	return {
		jobId: job.jobId,
		status: job.status,
		queuePosition: job.queuePosition,
		submittedAt: new Date(job.submittedAt).toISOString(),
		warnings: job.warnings,
		request: describeRequest(request),
	};
}

interface Deps {
	node: RedNode;
	t: Translate;
	client: () => { client: RenderClient };
	settings: GenerateSettings;
	wait: WaitSettings;
	emit: boolean;
}

function warnAbout(node: RedNode, job: SubmittedJob): void {
	for (const warning of job.warnings) node.warn(warning);
}

async function handle(deps: Deps, msg: NodeMessage, ctx: WorkContext): Promise<WorkResult> {
	// A job ID from upstream (e.g. an earlier generate) must not be blamed for this job's errors.
	delete msg.jobId;
	const { client } = deps.client();
	const draft = draftRequest(msg, deps.settings, deps.t);
	const request = await completeRequest(
		draft,
		() => client.catalogue({ signal: ctx.signal }),
		deps.t,
	);
	ctx.board.working(ctx.key, 'submitting');
	if (deps.emit) {
		const job = await client.submit(request, { signal: ctx.signal });
		warnAbout(deps.node, job);
		Object.assign(msg, { jobId: job.jobId, payload: job.jobId, job: jobInfo(job, request) });
		return { out: msg, statusText: deps.t(`${TYPE}.status.submitted`, { jobId: job.jobId }) };
	}
	const wait = withMessage(deps.wait, msg);
	let submitted: SubmittedJob | undefined;
	const outcome = await client.generate(request, {
		mode: wait.waitMode,
		timeoutMs: wait.timeoutMs,
		onTimeout: wait.onTimeout,
		signal: ctx.signal,
		onSubmitted: (job) => {
			submitted = job;
			msg.jobId = job.jobId;
			warnAbout(deps.node, job);
			ctx.board.progress(ctx.key, { status: job.status, queuePosition: job.queuePosition });
		},
		onProgress: (p) => ctx.board.progress(ctx.key, p),
	});
	const job = jobInfo(submitted ?? outcome.job, request);
	msg.jobId = outcome.job.jobId;
	if (outcome.kind === 'timed_out') {
		return timedOutResult({ ...outcome, jobId: outcome.job.jobId }, wait, msg, job, deps.t, TYPE);
	}
	ctx.board.working(ctx.key, 'downloading');
	await deliver(outcome.file, msg, wait.outputFile || undefined, ctx.signal);
	msg.job = { ...job, status: 'complete', waitedMs: outcome.waitedMs, via: outcome.via };
	return { out: msg };
}

export = function register(RED: NodeAPI): void {
	RED.nodes.registerType(TYPE, function RenderGenerate(this: RedNode, def: NodeDef) {
		RED.nodes.createNode(this, def);
		const t = translator(RED);
		const client = clientSource(RED, def.config, t);
		const deps: Deps = {
			node: this,
			t,
			client,
			settings: generateSettings(def),
			wait: waitSettings(def),
			emit: def.mode === 'emit',
		};
		startWorker({
			node: this,
			t,
			prefix: TYPE,
			limit: positiveInt(def.concurrency, DEFAULT_CONCURRENCY),
			secrets: () => client().secrets,
			handle: (msg, ctx) => handle(deps, msg, ctx),
		});
	});
};
