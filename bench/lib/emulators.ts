/**
 * Emulators for the benchmarks, one per measurement so that `setTiming` and the counters of
 * one never disturb another. Every emulator started here is closed by `closeAll`.
 */
import { createEmulator } from '../../emulator';
import type { EmulatorOptions, JobView, Model, RunningEmulator } from '../../emulator/types';
import { sleep } from './stats';

const started: RunningEmulator[] = [];

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	const emulator = await createEmulator({ port: 0, ...options });
	started.push(emulator);
	return emulator;
}

export async function closeAll(): Promise<void> {
	await Promise.all(started.splice(0).map((e) => e.close()));
}

/** The job as the emulator sees it (its `completedAt` is the server-side completion time). */
export function jobView(emulator: RunningEmulator, jobId: string): JobView {
	const view = emulator.jobs().find((j) => j.id === jobId);
	if (!view) throw new Error(`the emulator has no job ${jobId}`);
	return view;
}

/** Resolves once the emulator holds `count` jobs (used to serialise submissions). */
export async function untilJobCount(
	emulator: RunningEmulator,
	count: number,
	timeoutMs = 60_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (emulator.jobs().length < count) {
		if (Date.now() > deadline) throw new Error(`no job #${count} within ${timeoutMs} ms`);
		await sleep(1);
	}
}

/** A catalogue of `count` models over families of 25, for the editor benchmark. */
export function largeCatalogue(count: number): Model[] {
	const backends = ['nunchaku', 'torch', 'tensorrt'];
	const statuses = ['active', 'active', 'active', 'beta', 'deprecated', 'coming_soon'];
	return Array.from({ length: count }, (_v, i) => {
		const fixed = i % 3 === 0;
		return {
			family: `family-${String(Math.floor(i / 25)).padStart(2, '0')}`,
			model: `model-${String(i).padStart(4, '0')}`,
			modality: i % 10 === 9 ? 'video' : 'image',
			tasks: i % 2 === 0 ? ['t2i', 'i2i'] : ['t2i'],
			backends: backends.slice(0, 1 + (i % 3)),
			default_backend: 'nunchaku',
			formats: ['1024', '512', 'portrait', 'landscape'],
			status: statuses[i % statuses.length] as string,
			info: fixed
				? { parameters: `${1 + (i % 20)}B`, fixed_steps: 4 }
				: { parameters: `${1 + (i % 20)}B`, default_steps: 28, guidance_range: [1, 10] },
		};
	});
}

/** The request every benchmark job uses (a built-in model, small PNG). */
export const JOB_REQUEST = {
	modality: 'image',
	family: 'flux',
	model: 'schnell',
	task: 't2i',
	format: '512',
	prompt: 'a lighthouse at dawn',
} as const;
