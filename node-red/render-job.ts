/**
 * render-job: Node-RED's completion trigger for jobs submitted with "emit the job ID". Takes a
 * job ID, waits for the job and outputs the file. Pending jobs are kept in node context and
 * resumed when the node starts again.
 */
import type { RenderClient } from '../core/api';
import { ValidationError } from '../core/errors';
import { clientSource } from './lib/client-for-node';
import { translator } from './lib/i18n';
import type { Translate } from './lib/i18n';
import { positiveInt } from './lib/limiter';
import { deliver } from './lib/output';
import { PendingJobs } from './lib/pending';
import type { NodeAPI, NodeDef, NodeMessage, RedNode } from './lib/red';
import { DEFAULT_CONCURRENCY, waitSettings, withMessage } from './lib/wait-settings';
import type { WaitSettings } from './lib/wait-settings';
import { timedOutResult } from './lib/timeout';
import { startWorker } from './lib/worker';
import type { WorkContext, WorkResult } from './lib/worker';

const TYPE = 'render-job';

interface Deps {
	t: Translate;
	client: () => { client: RenderClient };
	wait: WaitSettings;
	pending: PendingJobs;
}

function jobIdOf(msg: NodeMessage): string | undefined {
	for (const value of [msg.jobId, msg.payload]) {
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	}
	return undefined;
}

async function waitAndDeliver(
	deps: Deps,
	jobId: string,
	msg: NodeMessage,
	ctx: WorkContext,
): Promise<WorkResult> {
	const { client } = deps.client();
	const wait = withMessage(deps.wait, msg);
	ctx.board.progress(ctx.key, { status: 'queued' });
	const outcome = await client.wait(jobId, {
		mode: wait.waitMode,
		timeoutMs: wait.timeoutMs,
		onTimeout: wait.onTimeout,
		signal: ctx.signal,
		onProgress: (p) => ctx.board.progress(ctx.key, p),
	});
	if (outcome.kind === 'timed_out') return timedOutResult(outcome, wait, msg, {}, deps.t, TYPE);
	ctx.board.working(ctx.key, 'downloading');
	const file = await client.download(jobId, outcome.resultUrl, { signal: ctx.signal });
	await deliver(file, msg, wait.outputFile || undefined, ctx.signal);
	msg.job = { jobId, status: 'complete', waitedMs: outcome.waitedMs, via: outcome.via };
	return { out: msg };
}

async function handle(deps: Deps, msg: NodeMessage, ctx: WorkContext): Promise<WorkResult> {
	const jobId = jobIdOf(msg);
	if (!jobId) throw new ValidationError(deps.t(`${TYPE}.errors.noJobId`), { field: 'jobId' });
	msg.jobId = jobId;
	await deps.pending.add({
		jobId,
		topic: typeof msg.topic === 'string' ? msg.topic : undefined,
		since: Date.now(),
	});
	try {
		const result = await waitAndDeliver(deps, jobId, msg, ctx);
		await deps.pending.remove(jobId);
		return result;
	} catch (err) {
		if (settlesJob(err)) await deps.pending.remove(jobId).catch(() => undefined);
		throw err;
	}
}

/** Error codes that tell the job's fate, so waiting again could not help. */
const SETTLED = new Set(['job_failed', 'job_cancelled', 'not_found', 'timeout']);

/**
 * Only a known outcome forgets the job. A close, a rejected key or an unreachable service
 * keeps it pending, so the next start (e.g. after fixing the configuration) waits again.
 */
function settlesJob(err: unknown): boolean {
	const code = (err as { code?: unknown } | null)?.code;
	return typeof code === 'string' && SETTLED.has(code);
}

function setUp(RED: NodeAPI, node: RedNode, def: NodeDef): void {
	const t = translator(RED);
	const client = clientSource(RED, def.config, t);
	const store = typeof def.store === 'string' && def.store !== '' ? def.store : undefined;
	const pending = new PendingJobs(node.context(), store, node.id);
	const deps: Deps = { t, client, wait: waitSettings(def), pending };
	const worker = startWorker({
		node,
		t,
		prefix: TYPE,
		limit: positiveInt(def.concurrency, DEFAULT_CONCURRENCY),
		secrets: () => client().secrets,
		handle: (msg, ctx) => handle(deps, msg, ctx),
		// Removing the node means nobody waits for these jobs any more.
		onClose: (removed) => (removed ? pending.clear() : undefined),
	});
	pending.list().then(
		(jobs) => {
			for (const job of jobs) {
				const msg: NodeMessage = {
					jobId: job.jobId,
					payload: job.jobId,
					topic: job.topic,
					resumed: true,
				};
				worker.process(
					msg,
					(out) => node.send(out),
					(err) => err && node.error(err, msg),
				);
			}
		},
		(err: unknown) => node.error(t(`${TYPE}.errors.store`, { message: String(err) })),
	);
}

export = function register(RED: NodeAPI): void {
	RED.nodes.registerType(TYPE, function RenderJob(this: RedNode, def: NodeDef) {
		RED.nodes.createNode(this, def);
		setUp(RED, this, def);
	});
};
