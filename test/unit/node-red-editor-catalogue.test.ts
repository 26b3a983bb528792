/**
 * The compact catalogue the Node-RED editor's catalogue endpoint sends: every field the
 * dropdowns read survives, in catalogue order, and a refetched catalogue is never answered
 * with the encoding of the one before.
 */
import type { Model } from '../../core/types';
import { BUILT_IN_MODELS } from '../../emulator';
import type { EditorCatalogue } from '../../node-red/lib/editor-catalogue';
import { editorCatalogueBody } from '../../node-red/lib/editor-catalogue';

const decode = (body: string): Omit<Model, 'default_backend'>[] => {
	const { lists, infos, models } = JSON.parse(body) as EditorCatalogue;
	return models.map(([family, model, modality, status, tasks, formats, backends, info]) => ({
		family,
		model,
		modality,
		status,
		tasks: lists[tasks]!,
		formats: lists[formats]!,
		backends: lists[backends]!,
		info: infos[info]!,
	}));
};

const editorFields = ({ default_backend: _unused, ...rest }: Model) => rest;

it('keeps every field the editor reads, in catalogue order, and shares repeated lists', () => {
	const body = editorCatalogueBody(BUILT_IN_MODELS);
	expect(decode(body)).toEqual(BUILT_IN_MODELS.map(editorFields));
	const { lists } = JSON.parse(body) as EditorCatalogue;
	expect(new Set(lists.map((l) => JSON.stringify(l))).size).toBe(lists.length);
});

it('leaves info fields the editor does not show on the server', () => {
	const model = { ...BUILT_IN_MODELS[0]!, info: { parameters: '2B', license: 'internal' } };
	expect(decode(editorCatalogueBody([model]))[0]!.info).toEqual({ parameters: '2B' });
});

it('answers an empty catalogue with no models', () => {
	expect(decode(editorCatalogueBody([]))).toEqual([]);
});

it('reuses nothing from an earlier catalogue once the models are refetched', () => {
	// Each caller gets a new array of the same cached objects; a refetch brings new objects.
	const cached = BUILT_IN_MODELS.map((m) => ({ ...m }));
	expect(decode(editorCatalogueBody([...cached]))).toEqual(cached.map(editorFields));
	const refetched = cached.map((m) => ({ ...m, status: 'deprecated' }));
	refetched[0] = cached[0]!;
	expect(decode(editorCatalogueBody(refetched))).toEqual(refetched.map(editorFields));
	expect(decode(editorCatalogueBody([...cached]))).toEqual(cached.map(editorFields));
});
