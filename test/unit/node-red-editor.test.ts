/**
 * The render-generate editor's dependent dropdowns, run on a fake jQuery with the emulator's
 * built-in catalogue: what the user can choose at each step, and what the form saves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Model } from '../../core/types';
import { BUILT_IN_MODELS } from '../../emulator';
import { editorCatalogueBody } from '../../node-red/lib/editor-catalogue';
import { loadEditor } from '../helpers/node-red-editor-fake';
import type { FakeEditor } from '../helpers/node-red-editor-fake';

const strings = JSON.parse(
	readFileSync(join(__dirname, '../../node-red/locales/en-US/render-generate.json'), 'utf8'),
) as Record<string, unknown>;

interface Opened {
	editor: FakeEditor;
	node: Record<string, unknown>;
}

function open(saved: Record<string, unknown> = {}): Opened {
	const editor = loadEditor('render-generate', strings);
	const def = editor.definitions['render-generate']!;
	const defaults = def.defaults as Record<string, { value: unknown }>;
	const node: Record<string, unknown> = { _: def._ };
	for (const [name, d] of Object.entries(defaults)) node[name] = saved[name] ?? d.value;
	// Node-RED fills plain inputs from the node before oneditprepare; selects get their options later.
	for (const name of Object.keys(defaults)) {
		const el = editor.el(`node-input-${name}`);
		if (el && !el.isSelect) el.value = String(node[name] ?? '');
		if (el?.isSelect && el.options.length > 0) editor.$(`#node-input-${name}`).val(node[name]);
	}
	editor.configNodes.cfg = {
		id: 'cfg',
		baseUrl: 'http://127.0.0.1:8080',
		asyncUrl: 'http://127.0.0.1:8081',
		credentials: { has_apiKey: true, apiKey: '__PWRD__' },
	};
	editor.el('node-input-config').value = 'cfg';
	(def.oneditprepare as (this: unknown) => void).call(node);
	return { editor, node };
}

function choose(editor: FakeEditor, name: string, value: string): void {
	editor.$(`#node-input-${name}`).val(value).trigger('change');
}

/** The catalogue endpoint's answer, as the editor receives it. */
const answer = (models: readonly Model[]): unknown => JSON.parse(editorCatalogueBody(models));

const families = (modality?: string): string[] => [
	...new Set(
		BUILT_IN_MODELS.filter((m) => !modality || m.modality === modality).map((m) => m.family),
	),
];

it('asks for the catalogue once, through the selected config node', () => {
	const { editor } = open();
	expect(editor.ajax).toHaveLength(1);
	expect(editor.ajax[0]!.options.url).toBe('render-service/catalogue');
	expect(JSON.parse(editor.ajax[0]!.options.data)).toEqual({
		config: 'cfg',
		baseUrl: 'http://127.0.0.1:8080',
		asyncUrl: 'http://127.0.0.1:8081',
		apiKey: '__PWRD__',
		fresh: false,
	});
	editor.$('#node-input-config').trigger('change');
	expect(editor.ajax).toHaveLength(1);
	editor.$('#render-generate-refresh').trigger('click');
	expect(JSON.parse(editor.ajax[1]!.options.data)).toMatchObject({ fresh: true });
});

it('narrows families by modality, models by family, and details by model', () => {
	const { editor } = open();
	editor.ajax[0]!.resolve(answer(BUILT_IN_MODELS));
	expect(editor.options('node-input-modality')).toEqual(['', 'image', 'video']);
	expect(editor.options('node-input-family')).toEqual(['', ...families()]);
	choose(editor, 'modality', 'video');
	expect(editor.options('node-input-family')).toEqual(['', 'motion']);
	choose(editor, 'family', 'motion');
	expect(editor.options('node-input-model')).toEqual(['', 'clip-v1', 'clip-turbo']);
	choose(editor, 'modality', 'image');
	choose(editor, 'family', 'flux');
	expect(editor.options('node-input-model')).toEqual(['', 'schnell', 'dev', 'kontext']);
	choose(editor, 'model', 'dev');
	expect(editor.options('node-input-task')).toEqual(['', 't2i', 'i2i']);
	expect(editor.options('node-input-backend')).toEqual(['', 'nunchaku', 'torch', 'tensorrt']);
	const dev = BUILT_IN_MODELS.find((m) => m.family === 'flux' && m.model === 'dev')!;
	expect(editor.options('node-input-format')).toEqual(['', ...dev.formats]);
	expect(editor.el('node-input-steps').disabled).toBe(false);
	expect(editor.el('node-input-steps').attrs.placeholder).toBe('default 28');
	expect(editor.el('node-input-guidance').attrs.placeholder).toBe('1 to 10');
	choose(editor, 'model', 'schnell');
	expect(editor.el('node-input-steps').disabled).toBe(true);
	expect(editor.el('node-input-steps').attrs.placeholder).toBe('fixed at 4 steps');
	expect(editor.el('node-input-guidance').disabled).toBe(true);
	expect(editor.el('render-generate-catalogue').text_).toBe(`${BUILT_IN_MODELS.length} models`);
});

it('keeps saved choices the catalogue no longer lists, and drops them once the user changes a parent', () => {
	const { editor } = open({ modality: 'image', family: 'flux', model: 'retired', format: '512' });
	// Before the catalogue answers, the saved values are selectable.
	expect(editor.el('node-input-model').value).toBe('retired');
	editor.ajax[0]!.resolve(answer(BUILT_IN_MODELS));
	expect(editor.el('node-input-family').value).toBe('flux');
	expect(editor.el('node-input-model').value).toBe('retired');
	expect(editor.el('node-input-model').options.at(-1)?.text).toBe('retired (not in the catalogue)');
	expect(editor.el('node-input-format').value).toBe('512');
	choose(editor, 'family', 'sdxl');
	expect(editor.el('node-input-model').value).toBe('');
	expect(editor.options('node-input-model')).toEqual(['', 'base', 'turbo']);
});

it('labels models with size and status', () => {
	const { editor } = open();
	editor.ajax[0]!.resolve(answer(BUILT_IN_MODELS));
	choose(editor, 'family', 'sdxl');
	expect(editor.el('node-input-model').options.map((o) => o.text)).toEqual([
		'from msg',
		'base (3B)',
		'turbo (3B, deprecated)',
	]);
});

it('shows why the catalogue could not load', () => {
	const { editor } = open();
	editor.ajax[0]!.reject({
		status: 401,
		responseJSON: { error: 'Could not load the models: bad key' },
	});
	const message = editor.el('render-generate-catalogue');
	expect(message.text_).toBe('Could not load the models: bad key');
	expect(message.classes.has('render-service-error')).toBe(true);
	editor.$('#render-generate-refresh').trigger('click');
	editor.ajax[1]!.reject({ status: 0, statusText: 'error' });
	expect(message.text_).toBe('Could not load the models: error');
});

it('shows the wait rows only when waiting, and the path only for file output', () => {
	const { editor } = open();
	const rows = (cls: string): boolean[] => editor.$(`.${cls}`).els.map((e) => e.visible);
	expect(rows('render-generate-wait').every(Boolean)).toBe(true);
	expect(rows('render-generate-file')).toEqual([false]);
	choose(editor, 'output', 'file');
	expect(rows('render-generate-file')).toEqual([true]);
	choose(editor, 'mode', 'emit');
	expect(rows('render-generate-wait').some(Boolean)).toBe(false);
	expect(rows('render-generate-file')).toEqual([false]);
});
