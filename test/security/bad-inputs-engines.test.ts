/**
 * The bad inputs of docs/troubleshooting.md as n8n and Node-RED users meet them: the message
 * the node shows (n8n: error message and description; Node-RED: the error a Catch node
 * receives), that no job reached the service, and that the key appears nowhere.
 */
import { createEmulator, type RunningEmulator } from '../../emulator';
import { captureOutput, SECRET_KEY, type Capture } from '../helpers/fault-capture';
import { until } from '../helpers/until';
import { startServer, type TestServer } from '../helpers/fault-servers';
import { chain, node } from '../helpers/n8n-engine';
import { createRenderEngine, generateParams, renderNode, TYPES } from '../helpers/n8n-render';
import {
	catchNodes,
	configNode,
	generateNode,
	helper,
	load,
	nextMessage,
	type Flow,
	type Msg,
} from '../helpers/node-red-harness';
import { tempN8nUserFolder } from '../helpers/n8n-user-folder';

jest.setTimeout(30_000);

let emulator: RunningEmulator;
let capture: Capture;
let html: TestServer;
tempN8nUserFolder('bad-inputs-', 'all');

beforeAll(async () => {
	emulator = await createEmulator({ port: 0, apiKeys: [SECRET_KEY], queueMs: 20, runMs: 60 });
	html = await startServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'text/html' });
		res.end('<!doctype html><title>Welcome</title>');
	});
});
beforeEach(() => {
	capture = captureOutput();
	emulator.resetCounters();
});
afterEach(async () => {
	capture.restore();
	await helper.unload();
	// No bad input may create a job, and none may show the key.
	expect(emulator.counters().jobsCreated).toBe(0);
	expect(capture.leaks()).toBe(0);
});
afterAll(async () => {
	await emulator.close();
	await html.close();
});

describe('n8n Generate Media', () => {
	async function fails(parameters: Record<string, unknown>, credentials = {}) {
		const engine = createRenderEngine(emulator);
		engine.setCredentials('renderServiceApi', {
			apiKey: SECRET_KEY,
			baseUrl: emulator.baseUrl,
			asyncUrl: emulator.asyncUrl,
			...credentials,
		});
		const result = await engine.run({
			nodes: [
				node('Start', TYPES.manualTrigger),
				renderNode('Generate', TYPES.generateMedia, generateParams(parameters as never)),
			],
			connections: chain('Start', 'Generate'),
		});
		capture.add(result.run);
		const error = result.nodeError('Generate');
		expect(error).toBeDefined();
		return { message: String(error?.message), description: String(error?.description ?? '') };
	}

	it('empty prompt: n8n itself refuses an empty required field', async () => {
		await expect(fails({ prompt: '' })).rejects.toThrow('Parameter "Prompt" is required.');
	});

	it('empty prompt from an expression', async () => {
		expect(await fails({ prompt: '={{ $json.missing ?? "" }}' })).toEqual({
			message: 'The prompt is empty.',
			description: 'Write in Prompt what the image should show.',
		});
	});

	it('unknown model', async () => {
		const { message, description } = await fails({ model: 'nope' });
		expect(message).toBe('Model "nope" does not exist in family flux.');
		expect(description).toMatch(/^Choose one of: /);
	});

	it('steps on a fixed-steps model', async () => {
		expect((await fails({ settings: { steps: 20 } })).message).toBe(
			'Model flux/schnell has a fixed 4 steps; remove Steps.',
		);
	});

	it('guidance out of range', async () => {
		expect(await fails({ model: 'dev', settings: { guidance: 50 } })).toEqual({
			message: 'Guidance 50 is outside what model flux/dev accepts (1 to 10).',
			description: 'Set Guidance between 1 and 10.',
		});
	});

	it('a coming_soon model', async () => {
		expect((await fails({ family: 'sd3', model: 'medium' })).message).toBe(
			'Model sd3/medium is announced but not available yet.',
		);
	});

	it('a wrong API key', async () => {
		const { message, description } = await fails({}, { apiKey: 'rs_live_WRONG_0000' });
		expect(message).toBe(
			'the Render Service refused the API key while listing models (HTTP 401). The service said: "The API key is not valid.".',
		);
		expect(description).toBe('Check the API key in the Render Service credential.');
	});

	it('an oversized reply (an endless body) is cut off at 8 MiB', async () => {
		let closed = false;
		const chunk = Buffer.alloc(64 * 1024, 0x20);
		const endless = await startServer((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			const pump = (): void => {
				while (!res.destroyed && res.write(chunk));
				if (!res.destroyed) res.once('drain', pump);
			};
			req.on('close', () => (closed = true));
			pump();
		});
		try {
			const { message } = await fails({}, { baseUrl: endless.url });
			expect(message).toBe(
				'the reply of the Render Service while listing models was too large (over 8388608 bytes), so it was not read.',
			);
			// The connection is dropped, not drained in the background.
			await until(() => closed, 5_000, 'the connection to close');
		} finally {
			await endless.close();
		}
	});

	it('a wrong base URL (a web server, not the service)', async () => {
		const { message, description } = await fails({}, { baseUrl: html.url });
		expect(message).toBe('The model list from the Render Service could not be read.');
		expect(description).toMatch(/Check the Base URL/);
	});
});

describe('Node-RED render-generate and render-job', () => {
	async function caught(flow: Flow, msg: Msg, target = 'gen', apiKey = SECRET_KEY) {
		await load([...flow, { id: 'out', type: 'helper' }, ...catchNodes()], apiKey);
		for (const call of ['status', 'warn', 'error', 'log']) {
			helper.getNode(target).on(`call:${call}`, (c: { args: unknown[] }) => capture.add(c.args));
		}
		const message = nextMessage('caught');
		helper.getNode(target).receive(msg);
		const received = await message;
		capture.add(received);
		return String((received.error as { message?: string } | undefined)?.message);
	}

	function generate(props: Record<string, unknown> = {}, config = configNode(emulator)): Flow {
		return [config, generateNode({ waitMode: 'poll', timeout: 10, ...props })];
	}

	it('empty prompt', async () => {
		expect(await caught(generate(), { payload: '' })).toBe(
			'ValidationError: No prompt: set msg.prompt, send text in msg.payload, or enter a prompt in the node.',
		);
	});

	it('unknown model (msg.model)', async () => {
		expect(await caught(generate(), { payload: 'x', model: 'nope' })).toBe(
			'ValidationError: Model flux/nope is not in the catalogue.',
		);
	});

	it('guidance out of range (msg.guidance)', async () => {
		expect(await caught(generate({ model: 'dev' }), { payload: 'x', guidance: 50 })).toBe(
			'ValidationError: Guidance 50 is outside what model flux/dev accepts (1 to 10). Set Guidance between 1 and 10.',
		);
	});

	it('a coming_soon model', async () => {
		expect(await caught(generate({ family: 'sd3', model: 'medium' }), { payload: 'x' })).toBe(
			'ValidationError: Model sd3/medium is announced but not available yet. Choose another model for now.',
		);
	});

	it('a wrong API key', async () => {
		expect(await caught(generate(), { payload: 'x' }, 'gen', 'rs_live_WRONG_0000')).toBe(
			'UnauthorizedError: the Render Service refused the API key while listing models (HTTP 401). The service said: "The API key is not valid.". Check the API key in the Render Service credential.',
		);
	});

	it('a wrong base URL (a web server, not the service)', async () => {
		const config = { ...configNode(emulator), baseUrl: html.url, asyncUrl: html.url };
		expect(await caught(generate({}, config), { payload: 'x' })).toMatch(
			/^BadResponseError: The model list from the Render Service could not be read\. Check the Base URL/,
		);
	});

	it('a job ID that does not exist (render-job)', async () => {
		const flow: Flow = [
			configNode(emulator),
			{
				id: 'job',
				type: 'render-job',
				config: 'cfg',
				waitMode: 'auto',
				timeout: 10,
				onTimeout: 'fail',
				output: 'buffer',
				wires: [['out']],
			},
		];
		expect(await caught(flow, { payload: 'no-such-job' }, 'job')).toBe(
			'NotFoundError: Job no-such-job: the Render Service does not know this job (HTTP 404). The service said: "No job with ID "no-such-job".". The job ID may be wrong or the job may have expired; submit it again.',
		);
	});
});
