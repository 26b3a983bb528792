import { createCatalogue } from '../../core/catalogue';
import { validateRequest } from '../../core/validation';
import { ValidationError } from '../../core/errors';
import type { GenerationRequest } from '../../core/types';
import { MODELS } from './core-fakes';

const catalogue = createCatalogue(MODELS);
const base: GenerationRequest = {
	modality: 'image',
	family: 'flux',
	model: 'dev',
	task: 't2i',
	format: '1024',
	prompt: 'a boat',
};

function refusal(overrides: Partial<GenerationRequest>): ValidationError {
	try {
		validateRequest({ ...base, ...overrides }, catalogue);
	} catch (error) {
		if (error instanceof ValidationError) return error;
		throw error;
	}
	throw new Error('expected a ValidationError');
}

describe('validation before any request', () => {
	it('accepts a valid request', () => {
		expect(
			validateRequest({ ...base, steps: 20, guidance: 3.5, backend: 'torch', seed: 7 }, catalogue),
		).toEqual({
			model: MODELS[1],
			warnings: [],
		});
	});

	it.each([
		[{ prompt: '  ' }, 'prompt', /prompt is empty/i],
		[{ family: 'nope' }, 'family', /family "nope" is not offered/],
		[{ model: 'nope' }, 'model', /Choose one of: schnell, dev, old/],
		[
			{ family: 'wan', model: 'next', modality: 'video', format: 'landscape' },
			'model',
			/not available yet/,
		],
		[{ modality: 'video' }, 'modality', /makes image, not video/],
		[{ model: 'schnell', task: 'i2i', format: '512' }, 'task', /one of: t2i/],
		[{ task: 'i2i' }, 'image', /needs an input image/],
		[{ format: '512' }, 'format', /one of: 1024, portrait/],
		[{ backend: 'tensorrt' }, 'backend', /one of: torch/],
		[
			{ model: 'schnell', format: '512', steps: 8 },
			'steps',
			/^Model flux\/schnell has a fixed 4 steps; remove Steps\. /,
		],
		[{ steps: 0 }, 'steps', /whole number/],
		[{ guidance: 11 }, 'guidance', /outside .* \(1 to 10\)/],
		[
			{ model: 'schnell', format: '512', guidance: 2 },
			'guidance',
			/does not take guidance; remove Guidance/,
		],
		[{ seed: -1 }, 'seed', /whole number/],
		[
			{ image: { data: new Uint8Array([1]), mimeType: 'image/png' } },
			'image',
			/takes no input image/,
		],
		[
			{ task: 'i2i', image: { data: new Uint8Array([1]), mimeType: 'application/pdf' } },
			'image',
			/not a picture/,
		],
		[
			{ family: 'wan', model: 'next', modality: 'video', format: 'landscape', steps: 3 },
			'model',
			/not available yet/,
		],
		[
			{ family: 'wan', model: 'lite', modality: 'video', format: 'landscape', steps: 3 },
			'steps',
			/does not take a step count; remove Steps/,
		],
	] as const)('refuses %j naming field %s', (overrides, field, message) => {
		const error = refusal(overrides as Partial<GenerationRequest>);
		expect(error.field).toBe(field);
		// n8n shows the message with the hint as its description; together they say what to do.
		expect(`${error.message} ${error.hint}`).toMatch(message);
		expect(error.hint).toBeTruthy();
	});

	it('allows a deprecated model with a warning', () => {
		const result = validateRequest({ ...base, model: 'old', format: '512' }, catalogue);
		expect(result.warnings).toEqual([expect.stringMatching(/flux\/old is deprecated/)]);
	});

	it('accepts i2i with an image', () => {
		expect(() =>
			validateRequest(
				{ ...base, task: 'i2i', image: { data: new Uint8Array([1]), mimeType: 'image/png' } },
				catalogue,
			),
		).not.toThrow();
	});
});
