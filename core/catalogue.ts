/**
 * The model catalogue: `GET /models` with the family / modality filters, filtered again on our
 * side in case the service ignores a filter, cached per base URL and credential identity so
 * editor dropdowns answer instantly.
 */
import type { Catalogue } from './api';
import type { CoreContext } from './context';
import { BadResponseError } from './errors';
import {
	errorForResponse,
	isRecord,
	isTransientError,
	networkError,
	parseJson,
	retryAfterOf,
	sendText,
} from './http';
import { retryDelay } from './retry';
import { sleepOrAbort } from './wait-helpers';
import { TransportError } from './transport';
import type { Model, ModelFilter } from './types';

interface CacheEntry {
	at: number;
	models: Model[];
}

// Module-wide on purpose: engines create a client per call (e.g. each n8n loadOptions), and
// the cache must outlive those clients to make dropdowns instant.
const cache = new Map<string, CacheEntry>();
const inflight = new Map<string, Promise<Model[]>>();

const MAX_ATTEMPTS = 3;

/** Empties the catalogue cache (tests, or a "refresh" button). */
export function clearCatalogueCache(): void {
	cache.clear();
	inflight.clear();
}

function cacheKey(ctx: CoreContext, filter: ModelFilter): string {
	return [ctx.baseUrl, ctx.cacheIdentity, filter.family ?? '', filter.modality ?? ''].join('\n');
}

export function matchesFilter(model: Model, filter: ModelFilter): boolean {
	if (filter.family && model.family !== filter.family) return false;
	if (filter.modality && model.modality !== filter.modality) return false;
	return true;
}

function strings(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Keeps well-formed entries; fills missing arrays so helpers never meet `undefined`. */
export function normalizeModels(body: unknown): Model[] | undefined {
	const list = Array.isArray(body) ? body : isRecord(body) ? (body.models ?? body.data) : undefined;
	if (!Array.isArray(list)) return undefined;
	const out: Model[] = [];
	for (const raw of list) {
		if (!isRecord(raw) || typeof raw.family !== 'string' || typeof raw.model !== 'string') continue;
		const backends = strings(raw.backends);
		out.push({
			family: raw.family,
			model: raw.model,
			modality: typeof raw.modality === 'string' ? raw.modality : 'image',
			tasks: strings(raw.tasks),
			backends,
			default_backend:
				typeof raw.default_backend === 'string' ? raw.default_backend : (backends[0] ?? ''),
			formats: strings(raw.formats),
			status: typeof raw.status === 'string' ? raw.status : 'active',
			info: isRecord(raw.info) ? (raw.info as Model['info']) : {},
		});
	}
	return out;
}

async function fetchModels(
	ctx: CoreContext,
	filter: ModelFilter,
	signal?: AbortSignal,
): Promise<Model[]> {
	const url = new URL(`${ctx.baseUrl}/models`);
	if (filter.family) url.searchParams.set('family', filter.family);
	if (filter.modality) url.searchParams.set('modality', filter.modality);
	const purpose = { action: 'listing models' };
	for (let attempt = 0; ; attempt++) {
		let failure: unknown;
		try {
			const res = await sendText(
				ctx,
				{
					method: 'GET',
					url: url.toString(),
					auth: true,
					headers: { accept: 'application/json' },
					signal,
					timeoutMs: ctx.requestTimeoutMs,
				},
				purpose,
			);
			if (res.status === 200) {
				const models = normalizeModels(parseJson(res.body));
				if (!models) {
					throw new BadResponseError('The model list from the Render Service could not be read.', {
						status: res.status,
						hint: 'Check the Base URL in the credential; it should point at the catalogue service.',
					});
				}
				return models.filter((m) => matchesFilter(m, filter));
			}
			failure = errorForResponse(ctx, res, purpose);
		} catch (error) {
			failure = error instanceof TransportError ? networkError(ctx, error, purpose) : error;
		}
		if (!isTransientError(failure) || attempt + 1 >= MAX_ATTEMPTS) throw failure;
		await sleepOrAbort(ctx, retryDelay(attempt, ctx.random, retryAfterOf(failure)), signal);
	}
}

/** Lists models, from the cache when fresh. A fresh full list also answers filtered calls. */
export async function listModels(
	ctx: CoreContext,
	filter: ModelFilter = {},
	options: { signal?: AbortSignal; fresh?: boolean } = {},
): Promise<Model[]> {
	const now = ctx.clock();
	const fresh = (entry: CacheEntry | undefined) =>
		!options.fresh && entry !== undefined && now - entry.at < ctx.catalogueTtlMs;
	const key = cacheKey(ctx, filter);
	const exact = cache.get(key);
	if (fresh(exact)) return [...exact!.models];
	const full = cache.get(cacheKey(ctx, {}));
	if (fresh(full)) return full!.models.filter((m) => matchesFilter(m, filter));

	// Concurrent callers without their own signal share one request (editor dropdowns load
	// together); a caller with a signal gets its own, so aborting it fails no one else.
	const share = !options.signal && !options.fresh;
	let pending = share ? inflight.get(key) : undefined;
	if (!pending) {
		pending = fetchModels(ctx, filter, options.signal);
		if (share) {
			inflight.set(key, pending);
			void pending.then(
				() => inflight.delete(key),
				() => inflight.delete(key),
			);
		}
	}
	const models = await pending;
	cache.set(key, { at: ctx.clock(), models });
	return [...models];
}

function unique(values: string[]): string[] {
	return [...new Set(values)];
}

/** Read-only helpers over a model list, for editors and validation. */
export function createCatalogue(list: readonly Model[]): Catalogue {
	const models = Object.freeze([...list]);
	const find = (family: string, model: string) =>
		models.find((m) => m.family === family && m.model === model);
	return {
		models,
		modalities: () => unique(models.map((m) => m.modality)),
		families: (modality) =>
			unique(models.filter((m) => !modality || m.modality === modality).map((m) => m.family)),
		models_of: (family, modality) =>
			models.filter((m) => m.family === family && (!modality || m.modality === modality)),
		find,
		tasks: (family, model) => [...(find(family, model)?.tasks ?? [])],
		formats: (family, model) => [...(find(family, model)?.formats ?? [])],
		backends: (family, model) => [...(find(family, model)?.backends ?? [])],
		steps: (family, model) => {
			const info = find(family, model)?.info;
			if (!info) return undefined;
			if (typeof info.fixed_steps === 'number') return { fixed: info.fixed_steps };
			if (typeof info.default_steps === 'number') return { default: info.default_steps };
			return undefined;
		},
		guidance: (family, model) => {
			const range = find(family, model)?.info.guidance_range;
			return Array.isArray(range) && range.length === 2 ? [range[0], range[1]] : undefined;
		},
	};
}
