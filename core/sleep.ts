/** Default clock and abortable sleep; tests inject fakes through `RenderClientOptions`. */
import type { Clock, Sleep } from './transport';

export const defaultClock: Clock = () => Date.now();

export const defaultSleep: Sleep = (ms, signal) =>
	new Promise<void>((resolve, reject) => {
		if (signal?.aborted) {
			reject(abortReason(signal));
			return;
		}
		const onAbort = () => {
			clearTimeout(timer);
			reject(abortReason(signal));
		};
		const timer = setTimeout(
			() => {
				signal?.removeEventListener('abort', onAbort);
				resolve();
			},
			Math.max(0, ms),
		);
		signal?.addEventListener('abort', onAbort, { once: true });
	});

export function abortReason(signal: AbortSignal | undefined): unknown {
	return signal?.reason ?? new Error('aborted');
}

/**
 * A signal that aborts when any of `signals` does. Returns `dispose` so listeners on
 * long-lived parent signals do not pile up (AbortSignal.any would keep them until GC).
 */
export function linkSignals(...signals: (AbortSignal | undefined)[]): {
	controller: AbortController;
	signal: AbortSignal;
	dispose: () => void;
} {
	const controller = new AbortController();
	const cleanups: (() => void)[] = [];
	for (const parent of signals) {
		if (!parent) continue;
		if (parent.aborted) {
			controller.abort(parent.reason);
			break;
		}
		const onAbort = () => controller.abort(parent.reason);
		parent.addEventListener('abort', onAbort, { once: true });
		cleanups.push(() => parent.removeEventListener('abort', onAbort));
	}
	return {
		controller,
		signal: controller.signal,
		dispose: () => cleanups.forEach((fn) => fn()),
	};
}
