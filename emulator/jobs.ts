/**
 * Jobs, their event logs, and the bounded worker pool. A job waits at least `queueMs`, then
 * for a free worker (strict FIFO), runs for `runMs` with progress events, and ends complete,
 * failed or cancelled. Every state change is appended to the job's event log, which the SSE
 * route replays from any Last-Event-ID.
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorJobStatus, JobRequest, JobView } from './types';

export type JobEventName = 'status' | 'progress' | 'complete' | 'failed' | 'cancelled';

export interface JobEvent {
	/** 1-based, per job; sent as the SSE `id:`. */
	seq: number;
	event: JobEventName;
	data: Record<string, unknown>;
}

export interface Job {
	id: string;
	/** Hash of the API key that created it: jobs are private to their key. */
	owner: string;
	request: JobRequest;
	status: EmulatorJobStatus;
	createdAt: number;
	eligibleAt: number;
	startedAt?: number;
	completedAt?: number;
	progress: number;
	error?: { code: string; message: string };
	events: JobEvent[];
	listeners: Set<(event: JobEvent) => void>;
	timer?: NodeJS.Timeout;
}

export const TERMINAL: ReadonlySet<EmulatorJobStatus> = new Set([
	'complete',
	'failed',
	'cancelled',
]);
const PROGRESS_STEPS = 5;

export interface JobStoreOptions {
	queueMs: number;
	runMs: number;
	concurrency: number;
	/** Called when a job is about to complete; renders (and caches) its result. */
	prepareResult: (job: Job) => void;
	/** Told of every cancellation, whoever asked for it. */
	onCancel?: (job: Job) => void;
}

export class JobStore {
	private readonly jobs = new Map<string, Job>();
	private readonly queue: Job[] = [];
	private running = 0;
	private pumpTimer?: NodeJS.Timeout;
	private closed = false;

	constructor(private readonly options: JobStoreOptions) {}

	setTiming(t: { queueMs?: number; runMs?: number }): void {
		if (t.queueMs !== undefined) this.options.queueMs = t.queueMs;
		if (t.runMs !== undefined) this.options.runMs = t.runMs;
	}

	get(id: string): Job | undefined {
		return this.jobs.get(id);
	}

	all(): Job[] {
		return [...this.jobs.values()];
	}

	queuePosition(job: Job): number | undefined {
		const index = this.queue.indexOf(job);
		return index < 0 ? undefined : index;
	}

	create(request: JobRequest, owner: string): Job {
		const now = Date.now();
		const job: Job = {
			id: randomUUID(),
			owner,
			request,
			status: 'queued',
			createdAt: now,
			eligibleAt: now + this.options.queueMs,
			progress: 0,
			events: [],
			listeners: new Set(),
		};
		this.jobs.set(job.id, job);
		this.queue.push(job);
		this.emit(job, 'status', {
			id: job.id,
			status: 'queued',
			queue_position: this.queue.length - 1,
		});
		this.schedulePump(0);
		return job;
	}

	subscribe(job: Job, listener: (event: JobEvent) => void): () => void {
		job.listeners.add(listener);
		return () => job.listeners.delete(listener);
	}

	fail(job: Job, code: string, message: string): void {
		if (TERMINAL.has(job.status)) return;
		this.finish(job, 'failed', { code, message });
		this.emit(job, 'failed', { id: job.id, status: 'failed', error: job.error });
	}

	cancel(job: Job): void {
		if (TERMINAL.has(job.status)) return;
		this.finish(job, 'cancelled', { code: 'cancelled', message: 'The job was cancelled.' });
		this.options.onCancel?.(job);
		this.emit(job, 'cancelled', { id: job.id, status: 'cancelled', error: job.error });
	}

	close(): void {
		this.closed = true;
		clearTimeout(this.pumpTimer);
		for (const job of this.jobs.values()) {
			clearTimeout(job.timer);
			job.listeners.clear();
		}
	}

	view(job: Job): JobView {
		const view: JobView = {
			id: job.id,
			status: job.status,
			request: { ...job.request },
			createdAt: job.createdAt,
			progress: job.progress,
		};
		if (job.startedAt !== undefined) view.startedAt = job.startedAt;
		if (job.completedAt !== undefined) view.completedAt = job.completedAt;
		const position = this.queuePosition(job);
		if (position !== undefined) view.queuePosition = position;
		if (job.error) view.error = { ...job.error };
		return view;
	}

	private emit(job: Job, event: JobEventName, data: Record<string, unknown>): void {
		const entry: JobEvent = { seq: job.events.length + 1, event, data };
		job.events.push(entry);
		for (const listener of [...job.listeners]) listener(entry);
	}

	private finish(
		job: Job,
		status: EmulatorJobStatus,
		error?: { code: string; message: string },
	): void {
		clearTimeout(job.timer);
		job.timer = undefined;
		const wasRunning = job.status === 'running';
		job.status = status;
		job.completedAt = Date.now();
		if (error) job.error = error;
		const index = this.queue.indexOf(job);
		if (index >= 0) {
			this.queue.splice(index, 1);
			this.announcePositions(index);
		}
		if (wasRunning) {
			this.running--;
			this.schedulePump(0);
		}
	}

	private schedulePump(delayMs: number): void {
		if (this.closed) return;
		clearTimeout(this.pumpTimer);
		this.pumpTimer = setTimeout(() => this.pump(), Math.max(0, delayMs));
	}

	private pump(): void {
		const now = Date.now();
		let started = 0;
		while (this.running < this.options.concurrency && this.queue.length > 0) {
			const head = this.queue[0] as Job;
			if (head.eligibleAt > now) {
				this.schedulePump(head.eligibleAt - now);
				break;
			}
			this.queue.shift();
			started++;
			this.start(head);
		}
		if (started > 0) this.announcePositions(0);
	}

	/** Queued jobs from `from` on moved up: tell their subscribers. */
	private announcePositions(from: number): void {
		for (let i = from; i < this.queue.length; i++) {
			const job = this.queue[i] as Job;
			this.emit(job, 'status', { id: job.id, status: 'queued', queue_position: i });
		}
	}

	private start(job: Job): void {
		this.running++;
		job.status = 'running';
		job.startedAt = Date.now();
		this.emit(job, 'status', { id: job.id, status: 'running' });
		const stepMs = this.options.runMs / PROGRESS_STEPS;
		const tick = (step: number): void => {
			if (step < PROGRESS_STEPS) {
				if (step > 0) {
					job.progress = step / PROGRESS_STEPS;
					this.emit(job, 'progress', { id: job.id, progress: job.progress });
				}
				job.timer = setTimeout(() => tick(step + 1), stepMs);
				return;
			}
			this.complete(job);
		};
		tick(0);
	}

	private complete(job: Job): void {
		const prompt = job.request.prompt;
		if (prompt.includes('[fail]')) {
			this.fail(job, 'content_policy', 'The prompt was rejected by the content policy.');
			return;
		}
		if (prompt.includes('[cancel]')) {
			this.cancel(job);
			return;
		}
		try {
			this.options.prepareResult(job);
		} catch {
			this.fail(job, 'render_failed', 'The emulator could not render the result.');
			return;
		}
		job.progress = 1;
		this.finish(job, 'complete');
		this.emit(job, 'complete', { id: job.id, status: 'complete' });
	}
}
