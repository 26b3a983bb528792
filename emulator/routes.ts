/** Route tables of the catalogue and async origins (the CDN has its own file). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveAdmin } from './admin';
import { filterModels } from './catalogue';
import type { Context } from './context';
import type { EmulatorControl } from './control';
import { badRequest, methodNotAllowed, notFound, sendJson } from './errors';
import { guard } from './guard';
import { cancelJob, getJob, submitJob } from './queue-routes';
import { streamEvents } from './sse';

export async function routeCatalogue(
	ctx: Context,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	if (url.pathname !== '/models') throw notFound();
	if (req.method !== 'GET') throw methodNotAllowed(['GET']);
	await guard(ctx, 'models', req);
	// An empty filter value means "no filter", as form-built query strings often send one.
	const family = url.searchParams.get('family') || undefined;
	const modality = url.searchParams.get('modality') || undefined;
	sendJson(res, 200, { models: filterModels(ctx.models, { family, modality }) });
}

const JOB = /^\/jobs\/([^/]+)$/;
const EVENTS = /^\/jobs\/([^/]+)\/events$/;

export async function routeAsync(
	ctx: Context,
	control: EmulatorControl,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	const path = url.pathname;
	const method = req.method ?? 'GET';
	if (path === '/queue') {
		if (method !== 'POST') throw methodNotAllowed(['POST']);
		return submitJob(ctx, req, res);
	}
	const job = JOB.exec(path);
	if (job) {
		const id = decodePathPart(job[1] as string);
		if (method === 'GET') return getJob(ctx, req, res, id);
		if (method === 'DELETE') return cancelJob(ctx, req, res, id);
		throw methodNotAllowed(['GET', 'DELETE']);
	}
	const events = EVENTS.exec(path);
	if (events) {
		if (method !== 'GET') throw methodNotAllowed(['GET']);
		return streamEvents(ctx, req, res, decodePathPart(events[1] as string));
	}
	if (ctx.settings.admin && path.startsWith('/__admin/'))
		return serveAdmin(ctx, control, req, res, path);
	throw notFound();
}

function decodePathPart(part: string): string {
	try {
		return decodeURIComponent(part);
	} catch {
		throw badRequest('invalid_url', 'The job ID in the path is not valid percent-encoding.');
	}
}
