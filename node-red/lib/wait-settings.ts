/** Waiting and output settings shared by render-generate and render-job. */
import type { OnTimeout, WaitMode } from '../../core/types';
import type { NodeDef, NodeMessage } from './red';

export const DEFAULT_TIMEOUT_S = 600;
export const DEFAULT_CONCURRENCY = 4;

export interface WaitSettings {
	waitMode: WaitMode;
	timeoutMs: number;
	onTimeout: OnTimeout;
	/** Empty: keep the result in memory. */
	outputFile: string;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
	return allowed.includes(value as T) ? (value as T) : fallback;
}

function seconds(value: unknown): number | undefined {
	const n = typeof value === 'number' ? value : Number.parseFloat(String(value ?? ''));
	return Number.isFinite(n) && n > 0 ? n : undefined;
}

export function waitSettings(def: NodeDef): WaitSettings {
	return {
		waitMode: oneOf(def.waitMode, ['auto', 'sse', 'poll'] as const, 'auto'),
		timeoutMs: (seconds(def.timeout) ?? DEFAULT_TIMEOUT_S) * 1000,
		onTimeout: oneOf(def.onTimeout, ['fail', 'return', 'cancel'] as const, 'fail'),
		outputFile:
			def.output === 'file' && typeof def.outputFile === 'string' ? def.outputFile.trim() : '',
	};
}

/** `msg.timeout` (seconds) and `msg.outputFile` override the editor's values. */
export function withMessage(settings: WaitSettings, msg: NodeMessage): WaitSettings {
	const timeout = seconds(msg.timeout);
	const outputFile = typeof msg.outputFile === 'string' ? msg.outputFile.trim() : undefined;
	return {
		...settings,
		timeoutMs: timeout === undefined ? settings.timeoutMs : timeout * 1000,
		outputFile: outputFile || settings.outputFile,
	};
}
