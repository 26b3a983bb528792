/** Entry point of the local Render Service emulator. */
import type { EmulatorOptions, JobRequest, RenderedResult, RunningEmulator } from './types';

export * from './types';

/** The key the emulator accepts by default (printed by the CLI). Not a secret. */
export const DEMO_API_KEY = 'rs_demo_0123456789abcdef';

export async function createEmulator(_options: EmulatorOptions = {}): Promise<RunningEmulator> {
	throw new Error('createEmulator: not implemented yet');
}

export function renderResult(_req: JobRequest): RenderedResult {
	throw new Error('renderResult: not implemented yet');
}
