import { createEmulator } from '../../emulator';
import type { RunningEmulator } from '../../emulator/types';
import { chain } from '../helpers/n8n-engine';
import { createRenderEngine, renderNode, TYPES } from '../helpers/n8n-render';
import { node } from '../helpers/n8n-engine';

describe('n8n List Models in the real engine', () => {
	let emulator: RunningEmulator;

	beforeAll(async () => {
		emulator = await createEmulator({ port: 0, queueMs: 20, runMs: 50 });
	});
	afterAll(async () => {
		await emulator.close();
	});

	async function listModels(parameters: Record<string, unknown>) {
		const engine = createRenderEngine(emulator);
		const result = await engine.run({
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode('List Models', TYPES.listModels, parameters as never),
			],
			connections: chain('Start', 'List Models'),
		});
		expect(result.run.data.resultData.error).toBeUndefined();
		return result.output('List Models');
	}

	it('outputs one item per model with flat, camelCase fields', async () => {
		const items = await listModels({});
		expect(items.length).toBeGreaterThan(3);
		const dev = items.find((i) => i.json.family === 'flux' && i.json.model === 'dev');
		expect(dev?.json).toMatchObject({
			modality: 'image',
			status: 'active',
			defaultSteps: 28,
			guidanceMin: 1,
			guidanceMax: 10,
			defaultBackend: 'torch',
		});
		expect(items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
	});

	it('filters by family, modality and status', async () => {
		const flux = await listModels({ family: 'flux' });
		expect(flux.length).toBeGreaterThan(0);
		expect(flux.every((i) => i.json.family === 'flux')).toBe(true);

		const video = await listModels({ modality: 'video' });
		expect(video.length).toBeGreaterThan(0);
		expect(video.every((i) => i.json.modality === 'video')).toBe(true);

		const deprecated = await listModels({ statuses: ['deprecated'] });
		expect(deprecated.map((i) => `${i.json.family}/${i.json.model}`)).toEqual(['sdxl/turbo']);
	});

	it('can output the whole list as one item', async () => {
		const all = await listModels({});
		const items = await listModels({ output: 'list' });
		expect(items).toHaveLength(1);
		expect(items[0]?.json.count).toBe(all.length);
		expect(items[0]?.json.models).toEqual(all.map((i) => i.json));
	});

	it('fills the dropdowns from the catalogue, each depending on the one above', async () => {
		const engine = createRenderEngine(emulator);
		const generate = renderNode('Generate', TYPES.generateMedia, {});
		const modalities = await engine.loadOptions(generate, 'getModalities', {});
		expect(modalities.map((o) => o.value)).toEqual(expect.arrayContaining(['image', 'video']));
		const families = await engine.loadOptions(generate, 'getFamilies', { modality: 'image' });
		expect(families.map((o) => o.value)).toEqual(expect.arrayContaining(['flux', 'sdxl']));
		expect(families.map((o) => o.value)).not.toContain('motion');
		const models = await engine.loadOptions(generate, 'getModels', {
			modality: 'image',
			family: 'flux',
		});
		const dev = models.find((o) => o.value === 'dev');
		expect(dev?.description).toContain('28 steps by default');
		expect(dev?.description).toContain('guidance 1 to 10');
		const tasks = await engine.loadOptions(generate, 'getTasks', {
			family: 'flux',
			model: 'schnell',
		});
		expect(tasks.map((o) => o.value)).toEqual(['t2i']);
		const formats = await engine.loadOptions(generate, 'getFormats', {
			family: 'sdxl',
			model: 'turbo',
		});
		expect(formats.map((o) => o.value)).toEqual(['512', '1024']);
		const backends = await engine.loadOptions(generate, 'getBackends', {
			family: 'flux',
			model: 'dev',
		});
		expect(backends.find((o) => o.value === 'torch')?.name).toContain('Model Default');
	});
});
