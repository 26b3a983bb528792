/** Catalogue rules, request validation, fault dice and range parsing of the emulator. */
import { BUILT_IN_MODELS } from '../../emulator';
import { filterModels, loadCatalogue } from '../../emulator/catalogue';
import { HttpError } from '../../emulator/errors';
import { Faults, seededRandom } from '../../emulator/faults';
import { parseRange } from '../../emulator/range';
import { RateLimiter } from '../../emulator/rate-limit';
import { validateJobRequest } from '../../emulator/validate';
import { schemaErrors } from '../helpers/openapi';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('built-in catalogue', () => {
	it('matches the Model schema of docs/openapi.yaml, spec §2.1 rules included', () => {
		for (const model of BUILT_IN_MODELS) expect(schemaErrors('Model', model)).toEqual([]);
	});

	it('has the default backend among the backends of every model', () => {
		for (const m of BUILT_IN_MODELS) expect(m.backends).toContain(m.default_backend);
	});

	it('covers every status, backend, modality, step style and task set', () => {
		const all = (pick: (m: (typeof BUILT_IN_MODELS)[number]) => string[]): string[] =>
			[...new Set(BUILT_IN_MODELS.flatMap(pick))].sort();
		expect(all((m) => [m.status])).toEqual(['active', 'beta', 'coming_soon', 'deprecated']);
		expect(all((m) => m.backends)).toEqual(['nunchaku', 'tensorrt', 'torch']);
		expect(all((m) => [m.modality])).toEqual(['image', 'video']);
		expect(all((m) => [m.tasks.join('+')])).toEqual(['t2i', 't2i+i2i']);
		expect(BUILT_IN_MODELS.some((m) => m.info.fixed_steps !== undefined)).toBe(true);
		expect(BUILT_IN_MODELS.some((m) => m.info.default_steps !== undefined)).toBe(true);
		expect(new Set(BUILT_IN_MODELS.map((m) => m.family)).size).toBeGreaterThanOrEqual(3);
	});

	it('the Model schema rejects a fixed-steps model that also has guidance, and default_steps without guidance', () => {
		const base = BUILT_IN_MODELS[0] as (typeof BUILT_IN_MODELS)[number];
		expect(
			schemaErrors('Model', { ...base, info: { fixed_steps: 4, guidance_range: [1, 2] } }),
		).not.toEqual([]);
		expect(schemaErrors('Model', { ...base, info: { default_steps: 20 } })).not.toEqual([]);
		expect(schemaErrors('Model', { ...base, tasks: ['i2i'] })).not.toEqual([]);
	});

	it('combines filters and gives an empty list for unknown values', () => {
		expect(
			filterModels(BUILT_IN_MODELS, { family: 'flux', modality: 'image' }).length,
		).toBeGreaterThan(0);
		expect(filterModels(BUILT_IN_MODELS, { family: 'flux', modality: 'video' })).toEqual([]);
		expect(filterModels(BUILT_IN_MODELS, { family: 'nope' })).toEqual([]);
	});

	it('loads a catalogue from a JSON file, as an object or a bare array', () => {
		const dir = mkdtempSync(join(tmpdir(), 'emu-cat-'));
		const one = [BUILT_IN_MODELS[1]];
		writeFileSync(join(dir, 'a.json'), JSON.stringify({ models: one }));
		writeFileSync(join(dir, 'b.json'), JSON.stringify(one));
		writeFileSync(join(dir, 'c.json'), JSON.stringify({ nope: 1 }));
		expect(loadCatalogue(join(dir, 'a.json'))).toEqual(one);
		expect(loadCatalogue(join(dir, 'b.json'))).toEqual(one);
		expect(() => loadCatalogue(join(dir, 'c.json'))).toThrow(/models/);
		rmSync(dir, { recursive: true, force: true });
	});
});

describe('job request validation', () => {
	const ok = {
		modality: 'image',
		family: 'flux',
		model: 'dev',
		task: 't2i',
		format: '1024',
		prompt: 'a cat',
	};
	const png = 'data:image/png;base64,iVBORw0KGgo=';

	function rejection(body: Record<string, unknown>): {
		status: number;
		code: string;
		field?: string;
	} {
		try {
			validateJobRequest(body, BUILT_IN_MODELS);
		} catch (err) {
			if (err instanceof HttpError) return { status: err.status, code: err.code, field: err.field };
			throw err;
		}
		throw new Error('accepted');
	}

	it('accepts a minimal request and fills in the default backend', () => {
		expect(validateJobRequest(ok, BUILT_IN_MODELS)).toEqual({ ...ok, backend: 'torch' });
	});

	it('accepts every optional field within the model limits', () => {
		const full = {
			...ok,
			task: 'i2i',
			steps: 20,
			guidance: 3.5,
			backend: 'tensorrt',
			seed: 42,
			image: png,
		};
		expect(validateJobRequest(full, BUILT_IN_MODELS)).toEqual(full);
	});

	it.each([
		[{ ...ok, prompt: undefined }, 'missing_field', 'prompt'],
		[{ ...ok, format: 1024 }, 'invalid_field', 'format'],
		[{ ...ok, extra: 1 }, 'unknown_field', 'extra'],
		[{ ...ok, family: 'nope' }, 'unknown_family', 'family'],
		[{ ...ok, model: 'nope' }, 'unknown_model', 'model'],
		[{ ...ok, family: 'sd3', model: 'medium' }, 'model_unavailable', 'model'],
		[{ ...ok, modality: 'video' }, 'unsupported_modality', 'modality'],
		[{ ...ok, model: 'schnell', task: 'i2i', image: png }, 'unsupported_task', 'task'],
		[{ ...ok, family: 'sdxl', model: 'turbo', format: 'portrait' }, 'unsupported_format', 'format'],
		[{ ...ok, model: 'schnell', backend: 'tensorrt' }, 'unsupported_backend', 'backend'],
		[{ ...ok, model: 'schnell', steps: 8 }, 'steps_not_adjustable', 'steps'],
		[{ ...ok, steps: 2.5 }, 'invalid_field', 'steps'],
		[{ ...ok, steps: 0 }, 'invalid_field', 'steps'],
		[{ ...ok, model: 'schnell', guidance: 2 }, 'guidance_not_supported', 'guidance'],
		[{ ...ok, guidance: 11 }, 'guidance_out_of_range', 'guidance'],
		[{ ...ok, task: 'i2i' }, 'image_required', 'image'],
		[{ ...ok, image: png }, 'image_not_allowed', 'image'],
		[{ ...ok, task: 'i2i', image: 'https://example.com/cat.png' }, 'invalid_image', 'image'],
		[{ ...ok, seed: -1 }, 'invalid_field', 'seed'],
		[{ ...ok, prompt: '   ' }, 'invalid_field', 'prompt'],
		[{ ...ok, prompt: 'x'.repeat(4001) }, 'prompt_too_long', 'prompt'],
	])('refuses %j with 422 %s naming %s', (body, code, field) => {
		expect(rejection(body as Record<string, unknown>)).toEqual({ status: 422, code, field });
	});
});

describe('fault dice', () => {
	it('the seeded PRNG repeats for the same seed and differs for another', () => {
		const a = seededRandom(5);
		const b = seededRandom(5);
		const c = seededRandom(6);
		const seqA = [a(), a(), a()];
		expect([b(), b(), b()]).toEqual(seqA);
		expect([c(), c(), c()]).not.toEqual(seqA);
		for (const v of seqA) expect(v >= 0 && v < 1).toBe(true);
	});

	it('bursts count down and do not change the caller config', () => {
		const config = {
			job: { errorBurst: 2, errorStatus: 502 },
			queue: { rateLimitBurst: 1, retryAfterSeconds: 3 },
		};
		const faults = new Faults(config, seededRandom(1));
		expect(faults.draw('job')?.status).toBe(502);
		expect(faults.draw('job')?.status).toBe(502);
		expect(faults.draw('job')).toBeUndefined();
		const limited = faults.draw('queue');
		expect([limited?.status, limited?.headers['Retry-After']]).toEqual([429, '3']);
		expect(faults.draw('queue')).toBeUndefined();
		expect(config.job.errorBurst).toBe(2);
	});

	it('errorRate fails about that share of requests', () => {
		const faults = new Faults({ models: { errorRate: 0.3 } }, seededRandom(9));
		let failed = 0;
		for (let i = 0; i < 1000; i++) if (faults.draw('models')) failed++;
		expect(failed).toBeGreaterThan(230);
		expect(failed).toBeLessThan(370);
	});
});

describe('rate limiter', () => {
	it('answers 429 with Retry-After once the bucket is empty, and refills over time', () => {
		let now = 0;
		const limiter = new RateLimiter({ capacity: 2, refillPerSecond: 1 }, () => now);
		limiter.take('k');
		limiter.take('k');
		let error: unknown;
		try {
			limiter.take('k');
		} catch (err) {
			error = err;
		}
		expect(error).toBeInstanceOf(HttpError);
		expect((error as HttpError).status).toBe(429);
		expect((error as HttpError).headers['Retry-After']).toBe('1');
		limiter.take('other');
		now = 1000;
		expect(() => limiter.take('k')).not.toThrow();
	});
});

describe('Range header', () => {
	it.each([
		[undefined, { kind: 'full' }],
		['bytes=0-9', { kind: 'partial', start: 0, end: 9 }],
		['bytes=90-', { kind: 'partial', start: 90, end: 99 }],
		['bytes=-10', { kind: 'partial', start: 90, end: 99 }],
		['bytes=50-500', { kind: 'partial', start: 50, end: 99 }],
		['bytes=100-', { kind: 'unsatisfiable' }],
		['bytes=9-3', { kind: 'unsatisfiable' }],
		['bytes=0-1,5-6', { kind: 'full' }],
		['items=0-1', { kind: 'full' }],
	])('%s on 100 bytes -> %j', (header, expected) => {
		expect(parseRange(header, 100)).toEqual(expected);
	});
});
