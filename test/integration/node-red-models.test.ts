/**
 * render-models and the editor's catalogue endpoint, in Node-RED 4 against the emulator.
 */
import type { RunningEmulator } from '../../emulator';
import {
	catchNodes,
	configNode,
	helper,
	load,
	messages,
	nextMessage,
	startEmulator,
	textOf,
} from '../helpers/node-red-harness';
import type { Flow } from '../helpers/node-red-harness';
import type { Model } from '../../core/types';
import { editorCatalogueBody } from '../../node-red/lib/editor-catalogue';

jest.setTimeout(30_000);

let emulator: RunningEmulator;
let allModels: Model[];

beforeAll(async () => {
	emulator = await startEmulator();
	const res = await fetch(`${emulator.baseUrl}/models`, {
		headers: { authorization: `Bearer ${emulator.apiKey}` },
	});
	allModels = ((await res.json()) as { models: Model[] }).models;
});
afterAll(() => emulator.close());
afterEach(() => helper.unload());

function modelsFlow(props: Record<string, unknown> = {}): Flow {
	return [
		configNode(emulator),
		{ id: 'models', type: 'render-models', config: 'cfg', wires: [['out']], ...props },
		{ id: 'out', type: 'helper' },
		...catchNodes(),
	];
}

describe('render-models', () => {
	it('lists every model in msg.payload', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const output = nextMessage('out');
		helper.getNode('models').receive({ payload: 'go' });
		const msg = await output;
		expect(msg.payload).toEqual(allModels);
		expect(msg.count).toBe(allModels.length);
	});

	it('filters by the family and modality set in the node', async () => {
		await load(modelsFlow({ family: 'flux', modality: 'image' }), emulator.apiKey);
		const output = nextMessage('out');
		helper.getNode('models').receive({});
		const models = (await output).payload as Model[];
		expect(models.length).toBeGreaterThan(0);
		expect(models).toEqual(allModels.filter((m) => m.family === 'flux' && m.modality === 'image'));
	});

	it('lets msg.family, msg.modality and msg.status override the node', async () => {
		await load(modelsFlow({ family: 'flux', status: 'active' }), emulator.apiKey);
		const output = nextMessage('out');
		helper
			.getNode('models')
			.receive({ family: 'sdxl', status: ['active', 'beta', 'deprecated', 'coming_soon'] });
		expect((await output).payload).toEqual(allModels.filter((m) => m.family === 'sdxl'));
		const video = nextMessage('out');
		// An empty msg.status means any status, overriding the node's "active".
		helper.getNode('models').receive({ family: 'motion', modality: 'video', status: '' });
		const videos = (await video).payload as Model[];
		expect(videos.length).toBeGreaterThan(0);
		expect(videos).toEqual(
			allModels.filter((m) => m.family === 'motion' && m.modality === 'video'),
		);
	});

	it('filters by status', async () => {
		await load(modelsFlow({ status: 'active,beta' }), emulator.apiKey);
		const output = nextMessage('out');
		helper.getNode('models').receive({});
		const expected = allModels.filter((m) => m.status === 'active' || m.status === 'beta');
		expect(expected.length).toBeLessThan(allModels.length);
		expect((await output).payload).toEqual(expected);
	});

	it('sends one message per model with msg.parts for a Join node', async () => {
		await load(modelsFlow({ split: true }), emulator.apiKey);
		const output = messages('out', allModels.length);
		helper.getNode('models').receive({ topic: 'list' });
		const msgs = await output;
		expect(msgs.map((m) => m.payload)).toEqual(allModels);
		msgs.forEach((m, i) => {
			expect(m.topic).toBe('list');
			expect(m.parts).toMatchObject({ index: i, count: allModels.length, type: 'array' });
		});
	});

	it('reports a wrong key to Catch without the key', async () => {
		const wrongKey = 'rs_not_the_right_key_123456';
		await load(modelsFlow(), wrongKey);
		const caught = nextMessage('caught');
		helper.getNode('models').receive({});
		const msg = await caught;
		expect((msg.error as { message: string }).message).toMatch(/key|unauthori[sz]ed/i);
		expect(textOf(msg)).not.toContain(wrongKey);
	});

	it('reports a missing config node to Catch', async () => {
		await load(modelsFlow({ config: 'nope' }), emulator.apiKey);
		const caught = nextMessage('caught');
		helper.getNode('models').receive({});
		expect(((await caught).error as { message: string }).message).toMatch(/configuration/i);
	});
});

describe('catalogue endpoint for the editor', () => {
	const path = '/render-service/catalogue';
	/** The whole catalogue, in the compact form the editor expands. */
	const editorAnswer = (): unknown => JSON.parse(editorCatalogueBody(allModels));

	it('uses the stored key of a deployed config node when the editor shows the placeholder', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const res = await helper
			.request()
			.post(path)
			.send({ config: 'cfg', baseUrl: emulator.baseUrl, apiKey: '__PWRD__' });
		expect(res.status).toBe(200);
		expect(res.body).toEqual(editorAnswer());
		const byId = await helper.request().post(path).send({ config: 'cfg' });
		expect(byId.body).toEqual(editorAnswer());
	});

	it('works for a config node not yet deployed, with the URL and key as typed', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const res = await helper.request().post(path).send({
			config: 'new-config',
			baseUrl: emulator.baseUrl,
			asyncUrl: emulator.asyncUrl,
			apiKey: emulator.apiKey,
		});
		expect(res.status).toBe(200);
		expect(res.body).toEqual(editorAnswer());
	});

	it('asks for the key when a new config node has none', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const res = await helper
			.request()
			.post(path)
			.send({ config: 'new-config', baseUrl: emulator.baseUrl, apiKey: '__PWRD__' });
		expect(res.status).toBe(400);
		expect((res.body as { error: string }).error).toMatch(/API key/);
	});

	it('does not send the stored key to a URL other than the deployed one', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const before = emulator.counters().requests.models;
		const res = await helper
			.request()
			.post(path)
			.send({ config: 'cfg', baseUrl: 'http://127.0.0.1:9/elsewhere', apiKey: '__PWRD__' });
		expect(res.status).toBe(400);
		expect((res.body as { error: string }).error).toMatch(/key/i);
		expect(emulator.counters().requests.models).toBe(before);
	});

	it('explains a rejected key without echoing it', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const wrongKey = 'rs_typed_but_wrong_987654';
		const res = await helper
			.request()
			.post(path)
			.send({ baseUrl: emulator.baseUrl, apiKey: wrongKey });
		expect(res.status).toBe(401);
		expect((res.body as { error: string }).error).toMatch(/could not load the models/i);
		expect(res.text).not.toContain(wrongKey);
	});

	it('rejects a URL that is not http(s)', async () => {
		await load(modelsFlow(), emulator.apiKey);
		const res = await helper
			.request()
			.post(path)
			.send({ baseUrl: 'file:///etc/passwd', apiKey: 'x'.repeat(10) });
		expect(res.status).toBe(400);
	});
});
