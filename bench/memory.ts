/**
 * Memory: one 500 MiB result through the core's download and through Generate Media in
 * n8n's engine (filesystem binary mode), each in a child process (memory-child.ts) so its
 * peak RSS growth is its own. The emulator (which holds the 500 MiB file) stays here.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { RunningEmulator } from '../emulator/types';
import { startEmulator } from './lib/emulators';
import type { EmulatorAddress, MemoryChildInput, MemoryChildOutput } from './memory-child';

const execFileAsync = promisify(execFile);

export const RESULT_BYTES = 500 * 1024 * 1024;

export interface MemoryResult extends MemoryChildOutput {
	id: string;
	label: string;
	resultBytes: number;
	/** 1-based run number when a path is measured more than once. */
	run?: number;
}

export interface MemoryEmulators {
	large: RunningEmulator;
	small: RunningEmulator;
}

export async function memoryEmulators(): Promise<MemoryEmulators> {
	return {
		large: await startEmulator({ queueMs: 50, runMs: 200, resultPadBytes: RESULT_BYTES }),
		small: await startEmulator({ queueMs: 50, runMs: 200 }),
	};
}

function address(emulator: RunningEmulator): EmulatorAddress {
	return { baseUrl: emulator.baseUrl, asyncUrl: emulator.asyncUrl, apiKey: emulator.apiKey };
}

export async function measureMemory(
	emulators: MemoryEmulators,
	variant: 'core' | 'n8n',
	childScript: string,
): Promise<MemoryResult> {
	const dir = await mkdtemp(join(tmpdir(), `bench-memory-${variant}-`));
	try {
		const input: MemoryChildInput = {
			variant,
			large: address(emulators.large),
			small: address(emulators.small),
			dir,
		};
		const { stdout } = await execFileAsync(process.execPath, ['--expose-gc', childScript], {
			env: {
				...process.env,
				BENCH_MEMORY: JSON.stringify(input),
				N8N_USER_FOLDER: dir,
				N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
				N8N_BINARY_DATA_STORAGE_PATH: join(dir, 'binary-data'),
			},
			maxBuffer: 16 * 1024 * 1024,
			timeout: 5 * 60_000,
		});
		const line = stdout.trim().split('\n').pop() ?? '';
		const output = JSON.parse(line) as MemoryChildOutput;
		if (output.fileBytes < RESULT_BYTES) {
			throw new Error(`the ${variant} child stored ${output.fileBytes} bytes, not the whole file`);
		}
		return {
			...output,
			id: variant === 'core' ? 'core-download' : 'n8n-generate-media',
			label:
				variant === 'core'
					? 'Core download (stream to a file)'
					: 'n8n Generate Media (filesystem binary mode)',
			resultBytes: RESULT_BYTES,
		};
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}
