/** The ways of waiting for a job that the benchmarks compare, on the core or on plain HTTP. */
import { createRenderClient } from '../../core/client';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import type { RenderClient } from '../../core/api';
import type { RunningEmulator } from '../../emulator/types';
import { JOB_REQUEST } from './emulators';
import { sleep } from './stats';

export function coreClient(emulator: RunningEmulator): RenderClient {
	return createRenderClient({
		baseUrl: emulator.baseUrl,
		asyncUrl: emulator.asyncUrl,
		transport: createAxiosTransport({ apiKey: emulator.apiKey }),
		secrets: [emulator.apiKey],
	});
}

/** POST /queue by hand, as a user's HTTP Request node does; returns the job ID. */
export async function submitPlain(emulator: RunningEmulator, prompt?: string): Promise<string> {
	const res = await fetch(`${emulator.asyncUrl}/queue`, {
		method: 'POST',
		headers: {
			authorization: `Bearer ${emulator.apiKey}`,
			'content-type': 'application/json',
		},
		body: JSON.stringify({ ...JOB_REQUEST, ...(prompt ? { prompt } : {}) }),
	});
	if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
	return ((await res.json()) as { id: string }).id;
}

/**
 * A fixed-interval poller like the anchor nodes: sleep, GET the job, repeat until the 303.
 * Resolves with the moment it saw the job complete.
 */
export async function fixedPoll(
	emulator: RunningEmulator,
	jobId: string,
	intervalMs: number,
): Promise<number> {
	for (;;) {
		await sleep(intervalMs);
		const res = await fetch(`${emulator.asyncUrl}/jobs/${jobId}`, {
			headers: { authorization: `Bearer ${emulator.apiKey}` },
			redirect: 'manual',
		});
		await res.arrayBuffer();
		if (res.status === 303) return Date.now();
		if (res.status !== 200) throw new Error(`job poll answered ${res.status}`);
	}
}
