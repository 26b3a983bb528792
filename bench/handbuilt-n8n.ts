/**
 * The pattern n8n users build today, in a real n8n process (the pinned n8n of the e2e harness
 * on Node 24), from n8n's own nodes only: Webhook -> HTTP Request (submit) -> Wait 5 s ->
 * HTTP Request (job status, redirects off) -> IF status is "complete" -> HTTP Request to our
 * sink; the IF's false branch loops back to Wait. "Output" is the sink receiving the item.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { RunningEmulator } from '../emulator/types';
import { N8nInstance, provisionN8n } from '../test/helpers/e2e-n8n';
import { JOB_REQUEST, jobView, untilJobCount } from './lib/emulators';
import { sleep } from './lib/stats';
import type { LatencyMethod } from './latency';
import type { Waiter } from './requests';

/** One workflow per emulator it serves: workflow ID and webhook path carry the key. */
const workflowId = (key: string) => `benchHandBuilt${key}`;
const webhookPath = (key: string) => `bench-hand-built-${key.toLowerCase()}`;

export interface HandBuiltRig {
	/** Latency samples, on `latencyEmulator` (the workflow points at it). */
	method: LatencyMethod;
	latencyEmulator: RunningEmulator;
	/** Requests per 60 s job, on `requestsEmulator`. */
	waiter: Waiter;
	requestsEmulator: RunningEmulator;
	dispose(): Promise<void>;
}

function auth(apiKey: string) {
	return {
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
	};
}

function workflow(key: string, emulator: RunningEmulator, sinkUrl: string): object {
	const http = (name: string, x: number, parameters: Record<string, unknown>, y = 0) => ({
		id: `${name.replace(/\W/g, '')}-id`,
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [x, y],
		parameters,
	});
	const nodes = [
		{
			id: 'webhook-id',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: `bench-webhook-${key}`,
			parameters: {
				httpMethod: 'POST',
				path: webhookPath(key),
				responseMode: 'onReceived',
				options: {},
			},
		},
		http('Submit Job', 200, {
			method: 'POST',
			url: `${emulator.asyncUrl}/queue`,
			...auth(emulator.apiKey),
			sendBody: true,
			specifyBody: 'json',
			jsonBody: JSON.stringify(JOB_REQUEST),
			options: {},
		}),
		{
			id: 'wait-id',
			name: 'Wait 5 s',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [400, 0],
			webhookId: `bench-wait-${key}`,
			parameters: { resume: 'timeInterval', amount: 5, unit: 'seconds' },
		},
		http('Get Job', 600, {
			method: 'GET',
			url: `=${emulator.asyncUrl}/jobs/{{ $json.id }}`,
			...auth(emulator.apiKey),
			// A complete job answers 303 to the CDN: read that answer instead of following it.
			options: {
				redirect: { redirect: { followRedirects: false } },
				response: { response: { neverError: true } },
			},
		}),
		{
			id: 'if-id',
			name: 'Is Complete',
			type: 'n8n-nodes-base.if',
			typeVersion: 2.2,
			position: [800, 0],
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: 'status-complete',
							leftValue: '={{ $json.status }}',
							rightValue: 'complete',
							operator: { type: 'string', operation: 'equals' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
		},
		http(
			'Output',
			1000,
			{
				method: 'POST',
				url: sinkUrl,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ id: $json.id }) }}',
				options: {},
			},
			-100,
		),
	];
	const to = (node: string) => [{ node, type: 'main', index: 0 }];
	return {
		id: workflowId(key),
		name: `Bench: hand-built polling loop (${key})`,
		active: false,
		nodes,
		connections: {
			Webhook: { main: [to('Submit Job')] },
			'Submit Job': { main: [to('Wait 5 s')] },
			'Wait 5 s': { main: [to('Get Job')] },
			'Get Job': { main: [to('Is Complete')] },
			'Is Complete': { main: [to('Output'), to('Wait 5 s')] },
		},
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none' },
	};
}

interface Sink {
	url: string;
	arrivals: Map<string, number>;
	server: Server;
}

/** Records when the workflows' Output node delivers each job ID. */
async function startSink(): Promise<Sink> {
	const arrivals = new Map<string, number>();
	const server = createServer((req, res) => {
		const at = Date.now();
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			try {
				const id = String((JSON.parse(body) as { id?: unknown }).id);
				arrivals.set(id, at);
			} catch {
				// ignore malformed posts
			}
			res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { url: `http://127.0.0.1:${port}/sink`, arrivals, server };
}

/** n8n registers production webhooks while activating; wait until ours answers. */
async function webhookReady(url: string, instance: N8nInstance): Promise<void> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		// A GET is refused either way; once the POST webhook exists, n8n's refusal says so.
		const res = await fetch(url).catch(() => undefined);
		const text = res ? await res.text() : '';
		if (res && (res.status !== 404 || text.includes('POST'))) return;
		if (Date.now() > deadline) {
			throw new Error(`the hand-built workflow never became active\n${await instance.logs()}`);
		}
		await sleep(250);
	}
}

/** Every n8n started here and not yet disposed, so an interrupted run can stop them all. */
const live = new Set<N8nInstance>();

export async function disposeAllHandBuilt(): Promise<void> {
	await Promise.allSettled([...live].map((instance) => instance.dispose()));
	live.clear();
}

/** Waits until the sink has received `jobId`, or throws after two minutes. */
async function outputOf(sink: Sink, jobId: string): Promise<number> {
	const deadline = Date.now() + 120_000;
	while (!sink.arrivals.has(jobId)) {
		if (Date.now() > deadline) throw new Error(`real n8n never output job ${jobId}`);
		await sleep(20);
	}
	return sink.arrivals.get(jobId) as number;
}

async function trigger(url: string): Promise<void> {
	const res = await fetch(url, { method: 'POST', body: '{}' });
	if (!res.ok) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
}

/**
 * Starts real n8n with one hand-built workflow active per emulator: one for latency samples,
 * one for the 60 s jobs of the request count.
 */
export async function startHandBuilt(
	emulators: { latency: RunningEmulator; requests: RunningEmulator },
	log: (line: string) => void,
): Promise<HandBuiltRig> {
	const sink = await startSink();
	const runtime = await provisionN8n();
	const instance = await N8nInstance.create(runtime);
	live.add(instance);
	const hook = (key: string) => `${instance.url}/webhook/${webhookPath(key)}`;
	try {
		log('real n8n: importing and publishing the hand-built workflows');
		await instance.importWorkflows([
			workflow('Latency', emulators.latency, sink.url),
			workflow('Requests', emulators.requests, sink.url),
		]);
		await instance.publishWorkflow(workflowId('Latency'));
		await instance.publishWorkflow(workflowId('Requests'));
		log('real n8n: starting');
		await instance.start();
		await webhookReady(hook('Latency'), instance);
		await webhookReady(hook('Requests'), instance);
	} catch (error) {
		live.delete(instance);
		await instance.dispose();
		sink.server.close();
		throw error;
	}
	const method: LatencyMethod = {
		id: 'n8n-hand-built',
		label: 'Real n8n: HTTP Request + Wait 5 s + IF loop',
		async sample({ emulator: em, gate, queueMs, jobNumber }) {
			const jobId = await gate.hold(async () => {
				em.setTiming({ queueMs });
				await trigger(hook('Latency'));
				await untilJobCount(em, jobNumber, 30_000);
				return em.jobs()[jobNumber - 1]?.id as string;
			});
			const out = await outputOf(sink, jobId);
			return out - (jobView(em, jobId).completedAt as number);
		},
	};
	let triggered = 0;
	const waiter: Waiter = {
		id: 'n8n-hand-built',
		label: 'Real n8n: HTTP Request + Wait 5 s + IF loop',
		async waitOne(em) {
			const number = ++triggered;
			await trigger(hook('Requests'));
			await untilJobCount(em, number, 30_000);
			// Concurrent triggers may create their jobs in any order: wait for all so far.
			await Promise.all(em.jobs().map((job) => outputOf(sink, job.id)));
		},
	};
	return {
		method,
		latencyEmulator: emulators.latency,
		waiter,
		requestsEmulator: emulators.requests,
		async dispose() {
			live.delete(instance);
			await instance.dispose();
			sink.server.close();
		},
	};
}
