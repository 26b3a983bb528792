/**
 * The catalogue as the render-generate editor reads it, encoded once per cached catalogue.
 *
 * Only the fields the dropdowns and hints use are sent, as one row per model in catalogue
 * order; the string lists (tasks, formats, backends) and the info objects repeat across a
 * catalogue, so rows point into shared tables:
 *
 *   { lists: string[][], infos: ModelInfo[],
 *     models: [family, model, modality, status, tasks, formats, backends, info][] }
 *
 * For 1,000 models that is about a fifth of the full JSON. The core hands every caller a new
 * array of the same cached model objects, so an encoding stays valid while each entry is the
 * very object it was built from: one comparison per model instead of an encode per dropdown
 * fill. A refetched catalogue brings new objects, and with them a new encoding.
 */
import type { Model, ModelInfo } from '../../core/types';

export type EditorRow = [string, string, string, string, number, number, number, number];

export interface EditorCatalogue {
	lists: string[][];
	infos: ModelInfo[];
	models: EditorRow[];
}

interface Encoded {
	models: readonly Model[];
	body: string;
}

// Keyed by the first model object, so an encoding is dropped with the catalogue it came from.
const encoded = new WeakMap<Model, Encoded>();

/** The info fields the editor shows; anything else the service adds stays on the server. */
function editorInfo(info: ModelInfo): ModelInfo {
	const out: ModelInfo = {};
	if (info.parameters !== undefined) out.parameters = info.parameters;
	if (info.default_steps !== undefined) out.default_steps = info.default_steps;
	if (info.guidance_range !== undefined) out.guidance_range = info.guidance_range;
	if (info.fixed_steps !== undefined) out.fixed_steps = info.fixed_steps;
	return out;
}

/** Stores each distinct value once and answers its index. */
function table<T>(): { rows: T[]; index(value: T): number } {
	const rows: T[] = [];
	const seen = new Map<string, number>();
	return {
		rows,
		index(value) {
			const key = JSON.stringify(value);
			let i = seen.get(key);
			if (i === undefined) {
				i = rows.push(value) - 1;
				seen.set(key, i);
			}
			return i;
		},
	};
}

export function encodeEditorCatalogue(models: readonly Model[]): EditorCatalogue {
	const lists = table<string[]>();
	const infos = table<ModelInfo>();
	const rows = models.map(
		(m): EditorRow => [
			m.family,
			m.model,
			m.modality,
			m.status,
			lists.index(m.tasks),
			lists.index(m.formats),
			lists.index(m.backends),
			infos.index(editorInfo(m.info)),
		],
	);
	return { lists: lists.rows, infos: infos.rows, models: rows };
}

function sameEntries(a: readonly Model[], b: readonly Model[]): boolean {
	return a.length === b.length && a.every((m, i) => m === b[i]);
}

/** The endpoint's JSON answer, reused while the core serves the same cached catalogue. */
export function editorCatalogueBody(models: readonly Model[]): string {
	const first = models[0];
	if (!first) return JSON.stringify(encodeEditorCatalogue([]));
	const hit = encoded.get(first);
	if (hit && sameEntries(hit.models, models)) return hit.body;
	const body = JSON.stringify(encodeEditorCatalogue(models));
	encoded.set(first, { models: [...models], body });
	return body;
}
