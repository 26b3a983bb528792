/**
 * Throughput: 100 items of 2 s jobs against an emulator whose worker pool is 8. The capacity
 * bound is ceil(100 / 8) * 2 s plus the emulator's minimum queue time: no client can finish
 * sooner. Measured through Generate Media in n8n's engine and through the core's
 * `mapWithConcurrency` + `generate` (reading each file to its end), each on its own emulator.
 *
 * Every item asks for the same picture (each still a job of its own, with its own
 * Idempotency-Key): the emulator renders a picture synchronously on the event loop it shares
 * with the clients, 12 to 24 ms each, which would otherwise add 1 to 2 s of emulator work to
 * the wall time. The real service renders elsewhere.
 */
import { mapWithConcurrency } from '../core/concurrency';
import { coreClient } from './lib/clients';
import { JOB_REQUEST, startEmulator } from './lib/emulators';
import { renderEngine, runGenerate } from './lib/n8n';
import { round } from './lib/stats';

export const ITEMS = 100;
export const POOL = 8;
export const JOB_MS = 2_000;
export const QUEUE_MS = 300;
export const CLIENT_CONCURRENCY = 16;
export const BOUND_MS = Math.ceil(ITEMS / POOL) * JOB_MS + QUEUE_MS;

export interface ThroughputResult {
	id: string;
	label: string;
	items: number;
	wallMs: number;
	boundMs: number;
	ratio: number;
}

function result(id: string, label: string, wallMs: number): ThroughputResult {
	return { id, label, items: ITEMS, wallMs, boundMs: BOUND_MS, ratio: round(wallMs / BOUND_MS, 3) };
}

const emulatorOptions = { concurrency: POOL, runMs: JOB_MS, queueMs: QUEUE_MS };

export async function throughputN8n(): Promise<ThroughputResult> {
	const emulator = await startEmulator(emulatorOptions);
	const engine = renderEngine(emulator);
	const input = Array.from({ length: ITEMS }, (_v, i) => ({ json: { i } }));
	// Warm the catalogue cache so the run measures waiting, not the first model list.
	await coreClient(emulator).catalogue();
	const started = Date.now();
	const items = await runGenerate(engine, { options: { concurrency: CLIENT_CONCURRENCY } }, input);
	const wallMs = Date.now() - started;
	if (items.length !== ITEMS || items.some((item) => !item.binary?.data)) {
		throw new Error('Generate Media did not output every file');
	}
	return result(
		'n8n-generate-media',
		`n8n Generate Media (engine, concurrency ${CLIENT_CONCURRENCY}, auto/SSE, binary)`,
		wallMs,
	);
}

export async function throughputCore(): Promise<ThroughputResult> {
	const emulator = await startEmulator(emulatorOptions);
	const client = coreClient(emulator);
	await client.catalogue();
	const prompts = Array.from({ length: ITEMS }, () => JOB_REQUEST.prompt);
	const started = Date.now();
	const results = await mapWithConcurrency(prompts, CLIENT_CONCURRENCY, async (prompt) => {
		const outcome = await client.generate({ ...JOB_REQUEST, prompt });
		if (outcome.kind !== 'complete') throw new Error('a job timed out');
		let bytes = 0;
		for await (const chunk of outcome.file.stream) bytes += chunk.length;
		return bytes;
	});
	const wallMs = Date.now() - started;
	const failed = results.find((r) => !r.ok);
	if (failed && !failed.ok) throw failed.error;
	return result(
		'core-map',
		`Core mapWithConcurrency(${CLIENT_CONCURRENCY}) + generate (auto/SSE, download)`,
		wallMs,
	);
}
