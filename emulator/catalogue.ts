/**
 * The built-in model catalogue and its loading/filtering. It covers every backend, status and
 * step style of spec §2.1 so clients meet each case offline.
 */
import { readFileSync } from 'node:fs';
import type { Model } from './types';

const ALL_IMAGE_FORMATS = ['1024', '512', 'portrait', 'landscape'];

export const BUILT_IN_MODELS: Model[] = [
	{
		family: 'flux',
		model: 'schnell',
		modality: 'image',
		tasks: ['t2i'],
		backends: ['nunchaku', 'torch'],
		default_backend: 'nunchaku',
		formats: ALL_IMAGE_FORMATS,
		status: 'active',
		info: { parameters: '12B', fixed_steps: 4 },
	},
	{
		family: 'flux',
		model: 'dev',
		modality: 'image',
		tasks: ['t2i', 'i2i'],
		backends: ['nunchaku', 'torch', 'tensorrt'],
		default_backend: 'torch',
		formats: ALL_IMAGE_FORMATS,
		status: 'active',
		info: { parameters: '12B', default_steps: 28, guidance_range: [1, 10] },
	},
	{
		family: 'flux',
		model: 'kontext',
		modality: 'image',
		tasks: ['t2i', 'i2i'],
		backends: ['torch'],
		default_backend: 'torch',
		formats: ['1024', 'portrait', 'landscape'],
		status: 'beta',
		info: { parameters: '12B', default_steps: 30, guidance_range: [1.5, 5] },
	},
	{
		family: 'sdxl',
		model: 'base',
		modality: 'image',
		tasks: ['t2i', 'i2i'],
		backends: ['torch', 'tensorrt'],
		default_backend: 'tensorrt',
		formats: ALL_IMAGE_FORMATS,
		status: 'active',
		info: { parameters: '3B', default_steps: 30, guidance_range: [1, 15] },
	},
	{
		family: 'sdxl',
		model: 'turbo',
		modality: 'image',
		tasks: ['t2i'],
		backends: ['torch', 'tensorrt'],
		default_backend: 'tensorrt',
		formats: ['512', '1024'],
		status: 'deprecated',
		info: { parameters: '3B', fixed_steps: 1 },
	},
	{
		family: 'sd3',
		model: 'medium',
		modality: 'image',
		tasks: ['t2i', 'i2i'],
		backends: ['torch'],
		default_backend: 'torch',
		formats: ALL_IMAGE_FORMATS,
		status: 'coming_soon',
		info: { parameters: '2B', default_steps: 28, guidance_range: [1, 10] },
	},
	{
		family: 'motion',
		model: 'clip-v1',
		modality: 'video',
		tasks: ['t2i'],
		backends: ['torch', 'tensorrt'],
		default_backend: 'torch',
		formats: ['512', 'landscape', 'portrait'],
		status: 'beta',
		info: { parameters: '5B', default_steps: 24, guidance_range: [1, 8] },
	},
	{
		family: 'motion',
		model: 'clip-turbo',
		modality: 'video',
		tasks: ['t2i', 'i2i'],
		backends: ['nunchaku', 'torch'],
		default_backend: 'nunchaku',
		formats: ['512', 'landscape'],
		status: 'active',
		info: { parameters: '5B', fixed_steps: 8 },
	},
];

/** Reads the catalogue from an option: a list, a JSON file path, or the built-in one. */
export function loadCatalogue(source: Model[] | string | undefined): Model[] {
	if (source === undefined) return structuredClone(BUILT_IN_MODELS);
	if (Array.isArray(source)) return structuredClone(source);
	const parsed: unknown = JSON.parse(readFileSync(source, 'utf8'));
	const list = Array.isArray(parsed) ? parsed : (parsed as { models?: unknown }).models;
	if (!Array.isArray(list)) throw new Error(`Catalogue file ${source} has no "models" array.`);
	return list as Model[];
}

/** Both filters combine with AND; an unknown value simply matches nothing. */
export function filterModels(
	models: Model[],
	filter: { family?: string; modality?: string },
): Model[] {
	return models.filter(
		(m) =>
			(filter.family === undefined || m.family === filter.family) &&
			(filter.modality === undefined || m.modality === filter.modality),
	);
}

export function findModel(models: Model[], family: string, model: string): Model | undefined {
	return models.find((m) => m.family === family && m.model === model);
}
