/**
 * Checks a generation request against the model's catalogue entry before anything is sent.
 * Messages speak the editor's language (field labels, what to change), and each names the
 * `field` so engines can point at it.
 */
import type { Catalogue, ValidationResult } from './api';
import { ValidationError } from './errors';
import { fieldLabel } from './http';
import type { GenerationRequest, Model } from './types';

function list(values: readonly string[]): string {
	return values.length ? values.join(', ') : '(none)';
}

function refuse(field: string, message: string, hint: string): never {
	throw new ValidationError(message, { field, hint });
}

function pick<T>(found: T | undefined, field: string, message: string, hint: string): T {
	if (found === undefined) refuse(field, message, hint);
	return found as T;
}

export function validateRequest(
	request: GenerationRequest,
	catalogue: Catalogue,
): ValidationResult {
	if (typeof request.prompt !== 'string' || request.prompt.trim() === '') {
		refuse('prompt', 'The prompt is empty.', 'Write in Prompt what the image should show.');
	}
	const families = catalogue.families();
	if (!families.includes(request.family)) {
		refuse(
			'family',
			`Model family "${request.family}" is not offered by the Render Service.`,
			`Choose one of these families: ${list(families)}.`,
		);
	}
	const inFamily = catalogue.models_of(request.family);
	const model: Model = pick(
		catalogue.find(request.family, request.model),
		'model',
		`Model "${request.model}" does not exist in family ${request.family}.`,
		`Choose one of: ${list(inFamily.map((m) => m.model))}.`,
	);
	const name = `${model.family}/${model.model}`;
	const warnings: string[] = [];

	if (model.status === 'coming_soon') {
		refuse(
			'model',
			`Model ${name} is announced but not available yet.`,
			'Choose another model for now.',
		);
	}
	if (model.status === 'deprecated') {
		warnings.push(
			`Model ${name} is deprecated; it still works but will be removed. Consider another model.`,
		);
	}
	if (request.modality && model.modality && request.modality !== model.modality) {
		refuse(
			'modality',
			`Model ${name} makes ${model.modality}, not ${request.modality}.`,
			`Set Modality to ${model.modality}, or choose a ${request.modality} model.`,
		);
	}
	if (!model.tasks.includes(request.task)) {
		refuse(
			'task',
			`Model ${name} cannot do task "${request.task}".`,
			`Set Task to one of: ${list(model.tasks)}.`,
		);
	}
	if (request.task === 'i2i' && (!request.image || request.image.data.length === 0)) {
		refuse(
			'image',
			`Task i2i (image to image) needs an input image, and none was given.`,
			'Provide an Input Image, or set Task to t2i.',
		);
	}
	if (request.task !== 'i2i' && request.image) {
		refuse(
			'image',
			`Task ${request.task} takes no input image.`,
			'Remove the Input Image, or set Task to i2i if the model offers it.',
		);
	}
	if (request.image && !/^image\//i.test(request.image.mimeType)) {
		refuse(
			'image',
			`The input image has type "${request.image.mimeType}", which is not a picture.`,
			'Use a PNG, JPEG, WebP or GIF image as Input Image.',
		);
	}
	if (!model.formats.includes(request.format)) {
		refuse(
			'format',
			`Model ${name} does not offer format "${request.format}".`,
			`Set Format to one of: ${list(model.formats)}.`,
		);
	}
	if (
		request.backend !== undefined &&
		request.backend !== '' &&
		!model.backends.includes(request.backend)
	) {
		refuse(
			'backend',
			`Model ${name} does not run on backend "${request.backend}".`,
			`Set Backend to one of: ${list(model.backends)}, or leave it empty for ${model.default_backend || 'the default'}.`,
		);
	}
	checkSteps(request, model, name);
	checkGuidance(request, model, name);
	if (request.seed !== undefined && (!Number.isInteger(request.seed) || request.seed < 0)) {
		refuse(
			'seed',
			`Seed must be a whole number of 0 or more; got ${request.seed}.`,
			'Change Seed, or leave it empty for a random one.',
		);
	}
	return { model, warnings };
}

function checkSteps(request: GenerationRequest, model: Model, name: string): void {
	if (request.steps === undefined) return;
	const fixed = model.info.fixed_steps;
	if (typeof fixed === 'number') {
		refuse(
			'steps',
			`Model ${name} has a fixed ${fixed} steps; remove ${fieldLabel('steps')}.`,
			`Leave ${fieldLabel('steps')} empty for this model.`,
		);
	}
	if (typeof model.info.default_steps !== 'number') {
		refuse(
			'steps',
			`Model ${name} does not take a step count; remove ${fieldLabel('steps')}.`,
			`Leave ${fieldLabel('steps')} empty for this model.`,
		);
	}
	if (!Number.isInteger(request.steps) || request.steps < 1) {
		refuse(
			'steps',
			`Steps must be a whole number of 1 or more; got ${request.steps}.`,
			`Change Steps (the model's default is ${model.info.default_steps ?? 'not stated'}).`,
		);
	}
}

function checkGuidance(request: GenerationRequest, model: Model, name: string): void {
	if (request.guidance === undefined) return;
	const range = model.info.guidance_range;
	if (!Array.isArray(range) || range.length !== 2) {
		refuse(
			'guidance',
			`Model ${name} does not take guidance; remove Guidance.`,
			'Leave Guidance empty for this model.',
		);
	}
	const [min, max] = range;
	if (!Number.isFinite(request.guidance) || request.guidance < min || request.guidance > max) {
		refuse(
			'guidance',
			`Guidance ${request.guidance} is outside what model ${name} accepts (${min} to ${max}).`,
			`Set Guidance between ${min} and ${max}.`,
		);
	}
}
