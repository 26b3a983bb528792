/**
 * Watches the job ledger for one trigger node: waits on every pending job of its credential
 * through the core (SSE or polling), downloads the result, claims the delivery in the ledger
 * and only then emits, so each job fires once even with several triggers or processes.
 */
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { RenderClient } from '../../../core/api';
import {
	AbortedError,
	JobCancelledError,
	JobFailedError,
	NotFoundError,
	RenderServiceError,
} from '../../../core/errors';
import type { WaitMode } from '../../../core/types';
import type { Readable } from 'node:stream';
import { JobLedger, type LedgerEntry } from '../shared/ledger';

export interface WatcherOptions {
	ledger: JobLedger;
	client: RenderClient;
	/** Only jobs submitted to this queue address are ours. */
	asyncUrl: string;
	waitMode: WaitMode;
	includeFailed: boolean;
	binaryPropertyName: string;
	rescanMs: number;
	maxParallel: number;
	/** Longest single wait before the job is looked at again on a later scan. */
	waitSliceMs: number;
	/** False in the editor's test runs: emit without claiming, so production still fires. */
	claim: boolean;
	/** `<workflowId>/<nodeId>`, written into the delivery record. */
	subscriber: string;
	prepareBinaryData(data: Readable, fileName: string, mimeType: string): Promise<IBinaryData>;
	emit(item: INodeExecutionData): void;
	/** Problems that do not stop the watcher (network trouble): logged, retried on the next scan. */
	warn(message: string): void;
}

const DELIVERY_RECORD_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

function summary(entry: LedgerEntry): IDataObject {
	return {
		jobId: entry.jobId,
		modality: entry.modality,
		family: entry.family,
		model: entry.model,
		task: entry.task,
		format: entry.format,
		prompt: entry.prompt,
		submittedAt: entry.submittedAt,
		jobUrl: entry.jobUrl,
		sourceWorkflowId: entry.workflowId,
		sourceWorkflowName: entry.workflowName,
		sourceExecutionId: entry.executionId,
		sourceNode: entry.nodeName,
	};
}

export class LedgerWatcher {
	private readonly controller = new AbortController();
	private readonly watching = new Set<string>();
	private timer?: ReturnType<typeof setInterval>;
	private scanning = false;
	private stopped = false;
	/** Settles when the first item is emitted (manual test runs stop there). */
	readonly settled: Promise<void>;
	private markSettled = () => {};

	constructor(private readonly options: WatcherOptions) {
		this.settled = new Promise((resolve) => (this.markSettled = resolve));
	}

	start(): void {
		// The first scan runs after trigger() returned: n8n wires up emit only then in test runs.
		setImmediate(() => void this.scan());
		this.timer = setInterval(() => void this.scan(), this.options.rescanMs);
	}

	async stop(): Promise<void> {
		this.stopped = true;
		if (this.timer) clearInterval(this.timer);
		this.controller.abort(new AbortedError('The trigger was deactivated'));
	}

	/** Looks for pending jobs not yet watched. Public for tests. */
	async scan(): Promise<void> {
		if (this.scanning || this.stopped) return;
		this.scanning = true;
		try {
			const entries = await this.options.ledger.pending();
			for (const entry of entries) {
				if (this.stopped || this.watching.size >= this.options.maxParallel) break;
				if (this.watching.has(entry.jobId) || !this.isOurs(entry)) continue;
				this.watching.add(entry.jobId);
				void this.watch(entry).finally(() => this.watching.delete(entry.jobId));
			}
			if (this.options.claim) await this.options.ledger.prune(DELIVERY_RECORD_MAX_AGE_MS);
		} catch (error) {
			this.options.warn(
				`Render Service Trigger could not read its job ledger: ${(error as Error).message}`,
			);
		} finally {
			this.scanning = false;
		}
	}

	private isOurs(entry: LedgerEntry): boolean {
		return entry.asyncUrl.replace(/\/+$/, '') === this.options.asyncUrl.replace(/\/+$/, '');
	}

	private async watch(entry: LedgerEntry): Promise<void> {
		const { client, waitMode, waitSliceMs } = this.options;
		const signal = this.controller.signal;
		try {
			const outcome = await client.wait(entry.jobId, {
				mode: waitMode,
				timeoutMs: waitSliceMs,
				onTimeout: 'return',
				signal,
			});
			if (outcome.kind === 'timed_out') return; // still running: the next scan waits again
			// Another trigger may have delivered it while we waited: skip the download then.
			if (this.options.claim && !(await this.options.ledger.isPending(entry.jobId))) return;
			const file = await client.download(entry.jobId, outcome.resultUrl, { signal });
			const binary = await this.options.prepareBinaryData(
				file.stream as unknown as Readable,
				file.fileName,
				file.mimeType,
			);
			const json: IDataObject = {
				...summary(entry),
				status: 'complete',
				completedAt: new Date().toISOString(),
				fileName: file.fileName,
				mimeType: file.mimeType,
				fileSize: binary.bytes ?? file.size,
			};
			await this.deliver(entry, 'delivered', {
				json,
				binary: { [this.options.binaryPropertyName]: binary },
			});
		} catch (error) {
			await this.handleFailure(entry, error);
		}
	}

	private async handleFailure(entry: LedgerEntry, error: unknown): Promise<void> {
		if (this.stopped || error instanceof AbortedError) return;
		const final =
			error instanceof JobFailedError ||
			error instanceof JobCancelledError ||
			error instanceof NotFoundError;
		if (!final) {
			const message = error instanceof Error ? error.message : String(error);
			this.options.warn(`Render Service Trigger will retry job ${entry.jobId}: ${message}`);
			return;
		}
		const failure = error as RenderServiceError;
		if (!this.options.includeFailed) {
			if (this.options.claim)
				await this.options.ledger.claim(entry, 'ignored', this.options.subscriber);
			return;
		}
		const status =
			error instanceof JobCancelledError
				? 'cancelled'
				: error instanceof NotFoundError
					? 'not_found'
					: 'failed';
		const json: IDataObject = { ...summary(entry), status, error: failure.message };
		if (failure.hint) json.errorDescription = failure.hint;
		if (error instanceof JobFailedError && error.serviceCode) json.errorCode = error.serviceCode;
		await this.deliver(entry, 'failed', { json });
	}

	private async deliver(
		entry: LedgerEntry,
		outcome: 'delivered' | 'failed',
		item: INodeExecutionData,
	): Promise<void> {
		if (this.stopped) return;
		if (this.options.claim) {
			const claimed = await this.options.ledger.claim(entry, outcome, this.options.subscriber);
			if (!claimed) return;
		}
		this.options.emit(item);
		this.markSettled();
	}
}
