/**
 * Admin routes under /__admin on the async origin, for tests that run the emulator in another
 * process (real n8n / Node-RED). Off unless `admin: true`; they take no API key, so never
 * enable them on a shared network.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonObject, readBody } from './body';
import type { Context } from './context';
import type { EmulatorControl } from './control';
import { HttpError, methodNotAllowed, notFound, sendJson } from './errors';
import type { FaultConfig } from './types';

type Handler = (body: Record<string, unknown>, id: string) => unknown;

export async function serveAdmin(
	ctx: Context,
	control: EmulatorControl,
	req: IncomingMessage,
	res: ServerResponse,
	path: string,
): Promise<void> {
	const routes: Array<[RegExp, string, Handler]> = [
		[/^\/__admin\/counters$/, 'GET', () => control.counters()],
		[/^\/__admin\/reset$/, 'POST', () => (control.resetCounters(), { ok: true })],
		[/^\/__admin\/faults$/, 'GET', () => ctx.faults.get()],
		[/^\/__admin\/faults$/, 'POST', (b) => (control.setFaults(b as FaultConfig), { ok: true })],
		[/^\/__admin\/timing$/, 'POST', (b) => (control.setTiming(timing(b)), { ok: true })],
		[/^\/__admin\/jobs$/, 'GET', () => ({ jobs: control.jobs() })],
		[/^\/__admin\/expire-cdn-urls$/, 'POST', () => (control.expireCdnUrls(), { ok: true })],
		[
			/^\/__admin\/jobs\/([^/]+)\/fail$/,
			'POST',
			(b, id) => (control.failJob(id, str(b.code), str(b.message)), { ok: true }),
		],
		[
			/^\/__admin\/jobs\/([^/]+)\/cancel$/,
			'POST',
			(_b, id) => (control.cancelJob(id), { ok: true }),
		],
	];
	const matching = routes.filter(([pattern]) => pattern.test(path));
	if (matching.length === 0) throw notFound();
	const route = matching.find(([, method]) => method === req.method);
	if (!route) throw methodNotAllowed(matching.map(([, method]) => method));
	const [pattern, method, handle] = route;
	const id = pattern.exec(path)?.[1] ?? '';
	const body = method === 'POST' ? await readJsonOrEmpty(req, ctx.settings.maxBodyBytes) : {};
	if (id && !ctx.store.get(id))
		throw new HttpError(404, 'job_not_found', `No job with ID "${id}".`);
	sendJson(res, 200, handle(body, id));
}

async function readJsonOrEmpty(
	req: IncomingMessage,
	max: number,
): Promise<Record<string, unknown>> {
	const raw = await readBody(req, max);
	return raw.length === 0 ? {} : parseJsonObject(raw);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function timing(b: Record<string, unknown>): { queueMs?: number; runMs?: number } {
	const out: { queueMs?: number; runMs?: number } = {};
	if (typeof b.queueMs === 'number') out.queueMs = b.queueMs;
	if (typeof b.runMs === 'number') out.runMs = b.runMs;
	return out;
}
