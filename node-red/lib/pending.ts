/**
 * render-job's list of jobs it is waiting for, kept in the node's context so waiting resumes
 * after a restart when the chosen context store persists (file store). Without any configured
 * context store Node-RED deletes a node's context whenever the node closes, redeploys included,
 * so the list is also kept in this process, keyed by node id: a redeploy always resumes.
 * Updates are chained so concurrent messages never overwrite each other's entries.
 */
import type { ContextStore } from './red';

export const PENDING_KEY = 'renderServicePendingJobs';

export interface PendingJob {
	jobId: string;
	topic?: string;
	/** Epoch ms when the node started waiting. */
	since: number;
}

type PendingMap = Record<string, PendingJob>;

/** Survives the node object across redeploys (the module stays loaded). */
const inProcess = new Map<string, PendingMap>();

/** Forgets the in-process copies, as a fresh Node-RED process would (tests). */
export function forgetInProcessPending(): void {
	inProcess.clear();
}

export class PendingJobs {
	private chain: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly context: ContextStore,
		/** Context store name; undefined for the default store. */
		private readonly store: string | undefined,
		private readonly nodeId: string,
	) {}

	list(): Promise<PendingJob[]> {
		return this.enqueue(async () => Object.values(await this.read()));
	}

	add(job: PendingJob): Promise<void> {
		return this.update((map) => {
			map[job.jobId] = job;
		});
	}

	remove(jobId: string): Promise<void> {
		return this.update((map) => {
			delete map[jobId];
		});
	}

	clear(): Promise<void> {
		return this.update((map) => {
			for (const id of Object.keys(map)) delete map[id];
		});
	}

	private update(change: (map: PendingMap) => void): Promise<void> {
		return this.enqueue(async () => {
			const map = await this.read();
			change(map);
			await this.write(map);
		});
	}

	private enqueue<T>(task: () => Promise<T>): Promise<T> {
		const next = this.chain.then(task, task);
		this.chain = next.catch(() => undefined);
		return next;
	}

	private read(): Promise<PendingMap> {
		const local = inProcess.get(this.nodeId) ?? {};
		return new Promise((resolve, reject) => {
			this.context.get(PENDING_KEY, this.store, (err, value) => {
				if (err) reject(err);
				else resolve({ ...local, ...(isPendingMap(value) ? value : {}) });
			});
		});
	}

	private write(map: PendingMap): Promise<void> {
		const value = Object.keys(map).length > 0 ? map : undefined;
		if (value) inProcess.set(this.nodeId, { ...value });
		else inProcess.delete(this.nodeId);
		return new Promise((resolve, reject) => {
			this.context.set(PENDING_KEY, value, this.store, (err) => (err ? reject(err) : resolve()));
		});
	}
}

function isPendingMap(value: unknown): value is PendingMap {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	return Object.values(value).every(
		(v) => typeof v === 'object' && v !== null && typeof (v as PendingJob).jobId === 'string',
	);
}
