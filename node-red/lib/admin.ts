/**
 * The editor's catalogue endpoint. The editor posts what it knows about the selected config
 * node: its id, and the URLs and key as currently typed (a config node not yet deployed has
 * only those). A key field that still shows Node-RED's password placeholder means "use the
 * stored credential", which we only send to the URL the config node was deployed with, so a
 * user who may read flows cannot redirect the stored key to another server.
 */
import { scrub } from '../../core/errors';
import { createClient, isHttpUrl, normaliseUrl } from './connection';
import type { ConnectionSettings } from './connection';
import { translator } from './i18n';
import type { AdminRequest, AdminResponse, NodeAPI } from './red';
import { asConfigNode } from './config-node';
import { editorCatalogueBody } from './editor-catalogue';

/** What Node-RED's editor shows in a password field whose value is stored server-side. */
export const PASSWORD_PLACEHOLDER = '__PWRD__';
export const CATALOGUE_PATH = '/render-service/catalogue';
const ADMIN_TIMEOUT_MS = 15_000;

interface CatalogueBody {
	config?: unknown;
	baseUrl?: unknown;
	asyncUrl?: unknown;
	apiKey?: unknown;
	fresh?: unknown;
}

type Resolved =
	| { ok: true; settings: ConnectionSettings }
	| { ok: false; status: number; key: string };

export function resolveSettings(RED: NodeAPI, body: CatalogueBody): Resolved {
	const id = typeof body.config === 'string' && body.config !== '' ? body.config : undefined;
	const deployed = id ? asConfigNode(RED.nodes.getNode(id)) : undefined;
	const stored = deployed?.connection();
	const typedKey =
		typeof body.apiKey === 'string' &&
		body.apiKey.trim() !== '' &&
		body.apiKey !== PASSWORD_PLACEHOLDER
			? body.apiKey.trim()
			: undefined;
	const baseUrl = normaliseUrl(body.baseUrl) || stored?.baseUrl || '';
	const asyncUrl = normaliseUrl(body.asyncUrl) || stored?.asyncUrl || baseUrl;
	if (!typedKey && !stored?.apiKey) {
		// A config node runs only once deployed and used by a node; before that its stored
		// key cannot be matched to a deployed URL, so the editor must send the key it has.
		return { ok: false, status: 400, key: id && !deployed ? 'notDeployed' : 'noKey' };
	}
	if (!isHttpUrl(baseUrl)) return { ok: false, status: 400, key: 'badBaseUrl' };
	if (typedKey) return { ok: true, settings: { baseUrl, asyncUrl, apiKey: typedKey } };
	if (!stored || stored.baseUrl !== baseUrl) {
		return { ok: false, status: 400, key: 'keyForOtherUrl' };
	}
	return { ok: true, settings: { ...stored, asyncUrl } };
}

function statusFor(err: unknown): number {
	const code = (err as { code?: unknown }).code;
	if (code === 'unauthorized') return 401;
	if (code === 'timeout' || code === 'aborted') return 504;
	return 502;
}

export function registerAdminRoutes(RED: NodeAPI): void {
	const t = translator(RED);
	const handler = async (req: AdminRequest, res: AdminResponse): Promise<void> => {
		const body = (
			typeof req.body === 'object' && req.body !== null ? req.body : {}
		) as CatalogueBody;
		const resolved = resolveSettings(RED, body);
		if (!resolved.ok) {
			res.status(resolved.status).json({ error: t(`render-service-config.admin.${resolved.key}`) });
			return;
		}
		const { settings } = resolved;
		try {
			const client = createClient(settings);
			const models = await client.listModels(undefined, {
				fresh: body.fresh === true,
				signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
			});
			res.type('application/json').send(editorCatalogueBody(models));
		} catch (err) {
			const message = err instanceof Error ? err.message : String(err);
			const text = t('render-service-config.admin.failed', { message });
			res.status(statusFor(err)).json({ error: scrub(text, [settings.apiKey]) });
		}
	};
	RED.httpAdmin.post(
		CATALOGUE_PATH,
		RED.auth.needsPermission('render-service.read'),
		(req, res) => {
			void handler(req, res);
		},
	);
}
