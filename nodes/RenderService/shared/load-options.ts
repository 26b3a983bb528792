/**
 * Dropdowns filled from the service's catalogue (cached by the core per credential). Each
 * reads the choices made above it, so the editor offers only what the chosen model supports.
 */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { Catalogue } from '../../../core/api';
import type { Model } from '../../../core/types';
import { connect } from './client';
import { toNodeError } from './errors';

async function loadCatalogue(context: ILoadOptionsFunctions): Promise<Catalogue> {
	const { client, secrets } = await connect(context);
	try {
		return await client.catalogue();
	} catch (error) {
		throw toNodeError(context.getNode(), error, { secrets });
	}
}

/** A parameter chosen above, or undefined when it is empty or still an expression. */
function chosen(context: ILoadOptionsFunctions, name: string): string | undefined {
	const value = context.getCurrentNodeParameter(name);
	if (typeof value !== 'string' || value === '' || value.startsWith('=')) return undefined;
	return value;
}

function titleCase(value: string): string {
	return value
		.split(/[_\s-]+/)
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

const TASK_NAMES: Record<string, string> = {
	t2i: 'Text to Image (t2i)',
	i2i: 'Image to Image (i2i)',
	t2v: 'Text to Video (t2v)',
	i2v: 'Image to Video (i2v)',
};

function byName(a: INodePropertyOptions, b: INodePropertyOptions) {
	return a.name.localeCompare(b.name);
}

/** What a user needs to know about a model when picking it. */
export function describeModel(model: Model): string {
	const parts: string[] = [titleCase(model.status)];
	if (model.info.parameters) parts.push(`${model.info.parameters} parameters`);
	if (model.info.default_steps !== undefined)
		parts.push(`${model.info.default_steps} steps by default`);
	if (model.info.fixed_steps !== undefined) parts.push(`fixed ${model.info.fixed_steps} steps`);
	if (model.info.guidance_range) {
		parts.push(`guidance ${model.info.guidance_range[0]} to ${model.info.guidance_range[1]}`);
	}
	parts.push(`tasks: ${model.tasks.join(', ')}`);
	parts.push(`backends: ${model.backends.join(', ')} (default ${model.default_backend})`);
	return parts.join(' · ');
}

export async function getModalities(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const catalogue = await loadCatalogue(this);
	return catalogue
		.modalities()
		.map((modality) => ({ name: titleCase(modality), value: modality }))
		.sort(byName);
}

export async function getFamilies(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const catalogue = await loadCatalogue(this);
	return catalogue
		.families(chosen(this, 'modality'))
		.map((family) => ({ name: family, value: family }))
		.sort(byName);
}

export async function getModels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const family = chosen(this, 'family');
	if (!family) return [];
	const catalogue = await loadCatalogue(this);
	return catalogue
		.models_of(family, chosen(this, 'modality'))
		.map((model) => ({
			name: model.status === 'active' ? model.model : `${model.model} (${titleCase(model.status)})`,
			value: model.model,
			description: describeModel(model),
		}))
		.sort(byName);
}

export async function getTasks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const family = chosen(this, 'family');
	const model = chosen(this, 'model');
	if (!family || !model) return [];
	const catalogue = await loadCatalogue(this);
	return catalogue
		.tasks(family, model)
		.map((task) => ({ name: TASK_NAMES[task] ?? task, value: task }));
}

export async function getFormats(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const family = chosen(this, 'family');
	const model = chosen(this, 'model');
	if (!family || !model) return [];
	const catalogue = await loadCatalogue(this);
	return catalogue.formats(family, model).map((format) => ({
		name: /^\d+$/.test(format) ? `${format} × ${format}` : titleCase(format),
		value: format,
	}));
}

export async function getBackends(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const family = chosen(this, 'family');
	const model = chosen(this, 'model');
	if (!family || !model) return [];
	const catalogue = await loadCatalogue(this);
	const found = catalogue.find(family, model);
	return catalogue.backends(family, model).map((backend) => ({
		name: backend === found?.default_backend ? `${backend} (Model Default)` : backend,
		value: backend,
	}));
}

/** Family filter of List Models: every family, any modality. */
export async function getAllFamilies(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const catalogue = await loadCatalogue(this);
	const families = catalogue.families().map((family) => ({ name: family, value: family }));
	return [{ name: 'All Families', value: '' }, ...families.sort(byName)];
}

/** Modality filter of List Models. */
export async function getAllModalities(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const options = await getModalities.call(this);
	return [{ name: 'All Modalities', value: '' }, ...options];
}
