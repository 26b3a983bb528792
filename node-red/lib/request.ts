/**
 * Builds a generation request from the editor's settings and the message's overrides.
 * Anything the message sets wins; empty editor fields fall back to the model's defaults from
 * the catalogue, so a flow can pass just `msg.family`, `msg.model` and a prompt.
 */
import type { Catalogue } from '../../core/api';
import { ValidationError } from '../../core/errors';
import type { GenerationRequest, InputImage } from '../../core/types';
import type { Translate } from './i18n';
import type { NodeMessage } from './red';

export interface GenerateSettings {
	modality: string;
	family: string;
	model: string;
	task: string;
	format: string;
	prompt: string;
	steps: string;
	guidance: string;
	backend: string;
	seed: string;
}

const TEXT_FIELDS = ['modality', 'family', 'model', 'task', 'format', 'backend'] as const;
const NUMBER_FIELDS = ['steps', 'guidance', 'seed'] as const;

function text(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	return undefined;
}

function numberField(
	name: (typeof NUMBER_FIELDS)[number],
	value: unknown,
	t: Translate,
): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n = typeof value === 'number' ? value : Number(String(value).trim());
	const integer = name !== 'guidance';
	if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
		throw new ValidationError(
			t('render-generate.errors.notANumber', { field: name, value: String(value) }),
			{
				field: name,
			},
		);
	}
	return n;
}

export function promptOf(msg: NodeMessage, settings: GenerateSettings): string | undefined {
	return text(msg.prompt) ?? text(msg.payload) ?? text(settings.prompt);
}

/** Recognises the common image formats by their first bytes. */
export function sniffImageType(data: Uint8Array): string | undefined {
	const starts = (...bytes: number[]): boolean => bytes.every((b, i) => data[i] === b);
	if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
	if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
	if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
	if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...data.subarray(8, 12)) === 'WEBP') {
		return 'image/webp';
	}
	return undefined;
}

export function imageOf(msg: NodeMessage, t: Translate): InputImage | undefined {
	const value = msg.image;
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') {
		const match = /^data:([^;,]+);base64,(.*)$/s.exec(value);
		if (!match?.[1] || match[2] === undefined) {
			throw new ValidationError(t('render-generate.errors.badImage'), { field: 'image' });
		}
		return { mimeType: match[1], data: Buffer.from(match[2], 'base64') };
	}
	if (!(value instanceof Uint8Array)) {
		throw new ValidationError(t('render-generate.errors.badImage'), { field: 'image' });
	}
	const mimeType = text(msg.imageType) ?? sniffImageType(value);
	if (!mimeType)
		throw new ValidationError(t('render-generate.errors.unknownImageType'), { field: 'image' });
	return { data: value, mimeType };
}

/** Request fields before the catalogue fills the gaps. */
export function draftRequest(
	msg: NodeMessage,
	settings: GenerateSettings,
	t: Translate,
): Partial<GenerationRequest> {
	const draft: Partial<GenerationRequest> = {};
	for (const name of TEXT_FIELDS) {
		const value = text(msg[name]) ?? text(settings[name]);
		if (value !== undefined) draft[name] = value;
	}
	for (const name of NUMBER_FIELDS) {
		const value = numberField(name, msg[name] ?? settings[name], t);
		if (value !== undefined) draft[name] = value;
	}
	const prompt = promptOf(msg, settings);
	if (prompt !== undefined) draft.prompt = prompt;
	const image = imageOf(msg, t);
	if (image) draft.image = image;
	return draft;
}

function needsCatalogue(draft: Partial<GenerationRequest>): boolean {
	return !draft.modality || !draft.task || !draft.format;
}

/** Completes the draft; fetches the (cached) catalogue only when a default is needed. */
export async function completeRequest(
	draft: Partial<GenerationRequest>,
	catalogue: () => Promise<Catalogue>,
	t: Translate,
): Promise<GenerationRequest> {
	if (!draft.family)
		throw new ValidationError(t('render-generate.errors.noFamily'), { field: 'family' });
	if (!draft.model)
		throw new ValidationError(t('render-generate.errors.noModel'), { field: 'model' });
	if (!draft.prompt)
		throw new ValidationError(t('render-generate.errors.noPrompt'), { field: 'prompt' });
	const request = { ...draft } as GenerationRequest;
	if (needsCatalogue(draft)) {
		const model = (await catalogue()).find(draft.family, draft.model);
		if (!model) {
			throw new ValidationError(
				t('render-generate.errors.unknownModel', { family: draft.family, model: draft.model }),
				{ field: 'model' },
			);
		}
		request.modality ??= model.modality;
		request.task ??= draft.image && model.tasks.includes('i2i') ? 'i2i' : (model.tasks[0] ?? 't2i');
		request.format ??= model.formats[0] ?? '';
	}
	return request;
}

/** The request as reported in `msg.job`: the input image is left out. */
export function describeRequest(request: GenerationRequest): Omit<GenerationRequest, 'image'> {
	const { image: _image, ...rest } = request;
	return rest;
}
