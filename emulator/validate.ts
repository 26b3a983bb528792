/** Checks a POST /queue body against the catalogue; every failure is a 422 naming the field. */
import { findModel } from './catalogue';
import { unprocessable } from './errors';
import type { JobRequest, Model } from './types';

const REQUIRED = ['modality', 'family', 'model', 'task', 'format', 'prompt'] as const;
const OPTIONAL = ['steps', 'guidance', 'backend', 'seed', 'image'] as const;
const KNOWN = new Set<string>([...REQUIRED, ...OPTIONAL]);
export const MAX_PROMPT_LENGTH = 4000;
export const MAX_STEPS = 150;
const DATA_URL = /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

export function validateJobRequest(body: Record<string, unknown>, models: Model[]): JobRequest {
	for (const key of Object.keys(body)) {
		if (!KNOWN.has(key)) throw unprocessable('unknown_field', `Unknown field "${key}".`, key);
	}
	for (const key of REQUIRED) {
		if (body[key] === undefined || body[key] === null) {
			throw unprocessable('missing_field', `Field "${key}" is required.`, key);
		}
		if (typeof body[key] !== 'string')
			throw unprocessable('invalid_field', `Field "${key}" must be a string.`, key);
	}
	const req = pickRequest(body);
	const model = checkModel(req, models);
	checkOptions(req, model);
	return { ...req, backend: req.backend ?? model.default_backend };
}

function pickRequest(body: Record<string, unknown>): JobRequest {
	const req: JobRequest = {
		modality: body.modality as string,
		family: body.family as string,
		model: body.model as string,
		task: body.task as string,
		format: body.format as string,
		prompt: body.prompt as string,
	};
	if (body.steps !== undefined) req.steps = integer(body.steps, 'steps', 1, MAX_STEPS);
	if (body.guidance !== undefined) {
		if (typeof body.guidance !== 'number' || !Number.isFinite(body.guidance)) {
			throw unprocessable('invalid_field', 'Field "guidance" must be a number.', 'guidance');
		}
		req.guidance = body.guidance;
	}
	if (body.seed !== undefined) req.seed = integer(body.seed, 'seed', 0, Number.MAX_SAFE_INTEGER);
	for (const key of ['backend', 'image'] as const) {
		if (body[key] === undefined) continue;
		if (typeof body[key] !== 'string')
			throw unprocessable('invalid_field', `Field "${key}" must be a string.`, key);
		req[key] = body[key];
	}
	return req;
}

function integer(value: unknown, field: string, min: number, max: number): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
		throw unprocessable(
			'invalid_field',
			`Field "${field}" must be an integer from ${min} to ${max}.`,
			field,
		);
	}
	return value;
}

function checkModel(req: JobRequest, models: Model[]): Model {
	if (req.prompt.trim() === '')
		throw unprocessable('invalid_field', 'The prompt is empty.', 'prompt');
	if (req.prompt.length > MAX_PROMPT_LENGTH) {
		throw unprocessable(
			'prompt_too_long',
			`The prompt exceeds ${MAX_PROMPT_LENGTH} characters.`,
			'prompt',
		);
	}
	if (!models.some((m) => m.family === req.family)) {
		throw unprocessable('unknown_family', `Unknown model family "${req.family}".`, 'family');
	}
	const model = findModel(models, req.family, req.model);
	if (!model)
		throw unprocessable('unknown_model', `Unknown model "${req.family}/${req.model}".`, 'model');
	if (model.status === 'coming_soon') {
		throw unprocessable(
			'model_unavailable',
			`Model "${req.family}/${req.model}" is not available yet.`,
			'model',
		);
	}
	const label = `${req.family}/${req.model}`;
	if (req.modality !== model.modality) {
		throw unprocessable(
			'unsupported_modality',
			`Model "${label}" produces ${model.modality}, not ${req.modality}.`,
			'modality',
		);
	}
	if (!model.tasks.includes(req.task)) {
		throw unprocessable(
			'unsupported_task',
			`Model "${label}" does not support task "${req.task}".`,
			'task',
		);
	}
	if (!model.formats.includes(req.format)) {
		throw unprocessable(
			'unsupported_format',
			`Model "${label}" does not support format "${req.format}".`,
			'format',
		);
	}
	return model;
}

function checkOptions(req: JobRequest, model: Model): void {
	const label = `${model.family}/${model.model}`;
	if (req.backend !== undefined && !model.backends.includes(req.backend)) {
		throw unprocessable(
			'unsupported_backend',
			`Model "${label}" does not run on backend "${req.backend}".`,
			'backend',
		);
	}
	if (req.steps !== undefined && model.info.default_steps === undefined) {
		throw unprocessable(
			'steps_not_adjustable',
			`Model "${label}" has a fixed step count.`,
			'steps',
		);
	}
	if (req.guidance !== undefined) {
		const range = model.info.guidance_range;
		if (!range)
			throw unprocessable(
				'guidance_not_supported',
				`Model "${label}" takes no guidance.`,
				'guidance',
			);
		if (req.guidance < range[0] || req.guidance > range[1]) {
			throw unprocessable(
				'guidance_out_of_range',
				`Guidance must be within [${range[0]}, ${range[1]}].`,
				'guidance',
			);
		}
	}
	checkImage(req);
}

function checkImage(req: JobRequest): void {
	if (req.task === 'i2i' && req.image === undefined) {
		throw unprocessable('image_required', 'Task "i2i" needs an input image.', 'image');
	}
	if (req.task !== 'i2i' && req.image !== undefined) {
		throw unprocessable('image_not_allowed', `Task "${req.task}" takes no input image.`, 'image');
	}
	if (req.image !== undefined && !DATA_URL.test(req.image)) {
		throw unprocessable(
			'invalid_image',
			'Field "image" must be a base64 data: URL of a PNG, JPEG, WebP or GIF image.',
			'image',
		);
	}
}
