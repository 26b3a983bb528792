/**
 * Child process of the memory benchmark (built beside main.js and spawned by memory.ts), so
 * its RSS holds only one download. Reads BENCH_MEMORY (JSON), prints one JSON line.
 *
 * - `core`: the core's `generate`, streaming the file to disk.
 * - `n8n`: Generate Media in n8n's engine with n8n's BinaryDataService in filesystem mode
 *   (N8N_DEFAULT_BINARY_DATA_MODE=filesystem), as an n8n instance stores binaries on disk.
 */
import 'reflect-metadata';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

import { BinaryDataService } from 'n8n-core';

import type { RunningEmulator } from '../emulator/types';
import { coreClient } from './lib/clients';
import { JOB_REQUEST } from './lib/emulators';
import { renderEngine, runGenerate } from './lib/n8n';

export interface EmulatorAddress {
	baseUrl: string;
	asyncUrl: string;
	apiKey: string;
}

export interface MemoryChildInput {
	variant: 'core' | 'n8n';
	/** The emulator of the 500 MiB result. */
	large: EmulatorAddress;
	/** An emulator of small results: one job through the same path before the baseline. */
	small: EmulatorAddress;
	/** Where the file (core) or n8n's binary data (n8n) goes. */
	dir: string;
}

export interface MemoryChildOutput {
	variant: string;
	baselineRssBytes: number;
	peakRssBytes: number;
	growthBytes: number;
	fileBytes: number;
	storedAs: string;
}

/** Peak RSS since the last reset (VmHWM), in bytes; undefined off Linux. */
function highWaterMark(): number | undefined {
	try {
		const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
		return match?.[1] ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

function resetHighWaterMark(): void {
	try {
		// "5" resets VmHWM to the current RSS (Linux 4.0+), so start-up peaks do not count.
		writeFileSync('/proc/self/clear_refs', '5');
	} catch {
		// Sampling alone still bounds the peak from below.
	}
}

type Runner = (address: EmulatorAddress) => Promise<{ fileBytes: number; storedAs: string }>;

function asEmulator(address: EmulatorAddress): RunningEmulator {
	return { ...address } as RunningEmulator;
}

function runCore(input: MemoryChildInput): Runner {
	return async (address) => {
		const client = coreClient(asEmulator(address));
		const outcome = await client.generate({ ...JOB_REQUEST, prompt: 'a very large file' });
		if (outcome.kind !== 'complete') throw new Error('the job did not complete');
		const path = join(input.dir, outcome.file.fileName);
		await pipeline(outcome.file.stream, createWriteStream(path));
		return { fileBytes: (await import('node:fs')).statSync(path).size, storedAs: 'file on disk' };
	};
}

/** n8n-core's own copy of the DI container (it nests its own @n8n/di). */
function n8nContainer(): { get<T>(type: new (...args: never[]) => T): T } {
	const corePath = dirname(require.resolve('n8n-core'));
	const di = require.resolve('@n8n/di', { paths: [corePath] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(di) as { Container: ReturnType<typeof n8nContainer> }).Container;
}

async function runN8n(): Promise<Runner> {
	await n8nContainer().get(BinaryDataService).init();
	return async (address) => {
		const engine = renderEngine(asEmulator(address));
		const [item] = await runGenerate(engine, { prompt: 'a very large file', waitStrategy: 'auto' });
		const binary = item?.binary?.data;
		if (!binary) throw new Error('Generate Media output no binary');
		return { fileBytes: Number(binary.bytes ?? 0), storedAs: String(binary.id ?? 'in memory') };
	};
}

async function main(): Promise<void> {
	const input = JSON.parse(process.env.BENCH_MEMORY ?? '{}') as MemoryChildInput;
	const run = input.variant === 'core' ? runCore(input) : await runN8n();
	// The same path once with a small file, so code loaded and compiled on first use (HTTP,
	// streams, n8n's binary store) is in the baseline and only the large file's cost is not.
	await run(input.small);
	(globalThis as { gc?: () => void }).gc?.();
	const baseline = process.memoryUsage().rss;
	resetHighWaterMark();
	let sampled = baseline;
	const sampler = setInterval(() => {
		sampled = Math.max(sampled, process.memoryUsage().rss);
	}, 5);
	const { fileBytes, storedAs } = await run(input.large);
	clearInterval(sampler);
	const peak = Math.max(sampled, highWaterMark() ?? 0, process.memoryUsage().rss);
	const output: MemoryChildOutput = {
		variant: input.variant,
		baselineRssBytes: baseline,
		peakRssBytes: peak,
		growthBytes: peak - baseline,
		fileBytes,
		storedAs,
	};
	process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
