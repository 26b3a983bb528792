import { sleep } from 'n8n-workflow';

import type { Sleep } from '../../../core/transport';

function abortReason(signal: AbortSignal): unknown {
	return signal.reason ?? new Error('The operation was aborted');
}

/**
 * n8n's own `sleep`, made abortable on every n8n version: n8n-workflow 2.x takes the signal
 * itself (`sleepWithAbort`), 1.x ignores it, so the signal is also raced here.
 */
export const n8nSleep: Sleep = async (ms, signal) => {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw abortReason(signal);
	let onAbort = () => {};
	const aborted = new Promise<never>((_resolve, reject) => {
		onAbort = () => reject(abortReason(signal));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([
			(sleep as (ms: number, signal?: AbortSignal) => Promise<void>)(ms, signal),
			aborted,
		]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
};
