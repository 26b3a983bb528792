/**
 * render-models: lists the catalogue, filtered by family, modality and status, as one message
 * or one message per model (with `msg.parts`, so a Join node can put them back together).
 */
import type { RenderClient } from '../core/api';
import type { Model, ModelFilter } from '../core/types';
import { clientSource } from './lib/client-for-node';
import { translator } from './lib/i18n';
import { positiveInt } from './lib/limiter';
import type { NodeAPI, NodeDef, NodeMessage, RedNode } from './lib/red';
import { DEFAULT_CONCURRENCY } from './lib/wait-settings';
import { startWorker } from './lib/worker';
import type { WorkContext, WorkResult } from './lib/worker';

const TYPE = 'render-models';

interface ModelsSettings {
	family: string;
	modality: string;
	status: string;
	split: boolean;
}

function text(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Status filter: a string (comma-separated) or an array of strings; empty means any. */
function statuses(value: unknown): string[] {
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return list
		.filter((s): s is string => typeof s === 'string')
		.map((s) => s.trim())
		.filter(Boolean);
}

function filterFor(
	settings: ModelsSettings,
	msg: NodeMessage,
): { filter: ModelFilter; status: string[] } {
	const filter: ModelFilter = {};
	const family = text(msg.family) ?? text(settings.family);
	const modality = text(msg.modality) ?? text(settings.modality);
	if (family) filter.family = family;
	if (modality) filter.modality = modality;
	const status = msg.status !== undefined ? statuses(msg.status) : statuses(settings.status);
	return { filter, status };
}

function splitMessages(msg: NodeMessage, models: Model[]): NodeMessage[] {
	const id = `${msg._msgid ?? 'models'}-${Date.now().toString(36)}`;
	return models.map((model, index) => ({
		...msg,
		payload: model,
		parts: { id, index, count: models.length, type: 'array', len: 1 },
	}));
}

async function handle(
	client: () => { client: RenderClient },
	settings: ModelsSettings,
	msg: NodeMessage,
	ctx: WorkContext,
): Promise<WorkResult> {
	ctx.board.working(ctx.key, 'listing');
	const { filter, status } = filterFor(settings, msg);
	const all = await client().client.listModels(filter, {
		signal: ctx.signal,
		fresh: msg.refresh === true,
	});
	const models = status.length > 0 ? all.filter((m) => status.includes(m.status)) : all;
	if (settings.split) return { out: [splitMessages(msg, models)] };
	msg.payload = models;
	msg.count = models.length;
	return { out: msg };
}

export = function register(RED: NodeAPI): void {
	RED.nodes.registerType(TYPE, function RenderModels(this: RedNode, def: NodeDef) {
		RED.nodes.createNode(this, def);
		const t = translator(RED);
		const client = clientSource(RED, def.config, t);
		const settings: ModelsSettings = {
			family: text(def.family) ?? '',
			modality: text(def.modality) ?? '',
			status: typeof def.status === 'string' ? def.status : '',
			split: def.split === true || def.split === 'true',
		};
		startWorker({
			node: this,
			t,
			prefix: TYPE,
			limit: positiveInt(def.concurrency, DEFAULT_CONCURRENCY),
			secrets: () => client().secrets,
			handle: (msg, ctx) => handle(client, settings, msg, ctx),
		});
	});
};
