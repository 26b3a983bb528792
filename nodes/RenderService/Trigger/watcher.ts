/**
 * Watches the job ledger for one trigger node: waits on every pending job of its credential
 * through the core (SSE or polling), downloads the result, claims the job in the ledger, emits,
 * and marks it delivered only once n8n reports the execution it started as ended. Each job
 * fires once even with several triggers or processes; a claim left by a crashed process is
 * put back and fires again after the restart.
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
import { JobLedger, type Claim, type LedgerEntry } from '../shared/ledger';

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
	/** `<workflowId>/<nodeId>`, written into the claim and the delivery record. */
	subscriber: string;
	/** Longest time `stop()` waits for running executions to end, so their claims close. */
	drainMs: number;
	prepareBinaryData(data: Readable, fileName: string, mimeType: string): Promise<IBinaryData>;
	/**
	 * Starts an execution with the item; throws (synchronously) when none could be started. The
	 * promise settles when that execution has ended: resolved, or rejected when n8n reports it
	 * failed or cancelled (it got the item anyway).
	 */
	emit(item: INodeExecutionData): Promise<unknown>;
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
		// Set only when a crash interrupted an earlier delivery: the workflow may see it twice.
		...(entry.claimant ? { redelivered: true } : {}),
	};
}

export class LedgerWatcher {
	private readonly controller = new AbortController();
	private readonly watching = new Set<string>();
	/** Claims whose execution is still running. */
	private readonly inFlight = new Set<Promise<void>>();
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

	/**
	 * Stops watching. Executions already started keep running (n8n lets them finish on a clean
	 * shutdown); waiting for them here, up to `drainMs`, lets their claims close before the
	 * process exits, so a clean restart does not deliver them again.
	 */
	async stop(): Promise<void> {
		this.stopped = true;
		if (this.timer) clearInterval(this.timer);
		this.controller.abort(new AbortedError('The trigger was deactivated'));
		if (this.inFlight.size === 0) return;
		let timer: ReturnType<typeof setTimeout> | undefined;
		await Promise.race([
			Promise.allSettled([...this.inFlight]),
			new Promise((resolve) => (timer = setTimeout(resolve, this.options.drainMs))),
		]);
		clearTimeout(timer);
	}

	/** Looks for pending jobs not yet watched. Public for tests. */
	async scan(): Promise<void> {
		if (this.scanning || this.stopped) return;
		this.scanning = true;
		try {
			if (this.options.claim) await this.requeueOrphans();
			const entries = await this.options.ledger.pending();
			for (const entry of entries) {
				if (this.stopped || this.watching.size >= this.options.maxParallel) break;
				if (this.watching.has(entry.jobId) || !this.isOurs(entry)) continue;
				this.watching.add(entry.jobId);
				void this.watch(entry)
					.catch((error: Error) =>
						this.options.warn(
							`Render Service Trigger will retry job ${entry.jobId}: ${error.message}`,
						),
					)
					.finally(() => this.watching.delete(entry.jobId));
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

	/** Claims of crashed processes go back to `pending/`, to be delivered again below. */
	private async requeueOrphans(): Promise<void> {
		for (const orphan of await this.options.ledger.orphans()) {
			if (!(await this.options.ledger.requeue(orphan))) continue; // another trigger did it
			this.options.warn(
				`Render Service Trigger: job ${orphan.jobId} was claimed by process ${orphan.pid}, which stopped before the execution it started ended; delivering it again`,
			);
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
		if (!this.options.claim) {
			void this.options.emit(item).catch(() => {});
			this.markSettled();
			return;
		}
		const claim = await this.options.ledger.take(entry, outcome, this.options.subscriber);
		if (!claim) return;
		let ended: Promise<unknown>;
		try {
			ended = this.options.emit(item);
		} catch (error) {
			// Nothing was started: give the job back for the next scan.
			await this.options.ledger.release(claim);
			this.options.warn(
				`Render Service Trigger could not start a workflow for job ${entry.jobId}, will retry: ${(error as Error).message}`,
			);
			return;
		}
		this.markSettled();
		const closing = this.close(claim, ended);
		this.inFlight.add(closing);
		void closing.finally(() => this.inFlight.delete(closing));
	}

	/** Marks the claim delivered once the execution has ended, however it ended. */
	private async close(claim: Claim, ended: Promise<unknown>): Promise<void> {
		let executionError: string | undefined;
		try {
			await ended;
		} catch (error) {
			executionError = error instanceof Error ? error.message : String(error);
		}
		try {
			const closed = await this.options.ledger.complete(claim, executionError);
			if (!closed) {
				this.options.warn(
					`Render Service Trigger: the claim on job ${claim.jobId} was taken over before its execution ended; it may fire twice`,
				);
			}
		} catch (error) {
			this.options.warn(
				`Render Service Trigger could not record job ${claim.jobId} as delivered: ${(error as Error).message}`,
			);
		}
	}
}
