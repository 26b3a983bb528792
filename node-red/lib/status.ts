/**
 * Node status while messages are in flight. With several jobs at once the status shows the
 * job that reported last, plus how many others are in flight, so the badge stays short.
 */
import type { JobProgress } from '../../core/types';
import type { Translate } from './i18n';
import type { NodeStatus, RedNode } from './red';

/** How long the green "done" stays before the status clears. */
export const DONE_CLEAR_MS = 3000;

export class StatusBoard {
	private readonly active = new Map<number, NodeStatus>();
	private nextKey = 1;
	private clearTimer: NodeJS.Timeout | undefined;

	constructor(
		private readonly node: RedNode,
		private readonly t: Translate,
		private readonly prefix: string,
	) {}

	/** Registers a message; returns the key its later updates use. */
	open(): number {
		return this.nextKey++;
	}

	waiting(key: number, ahead: number): void {
		this.update(key, { fill: 'grey', shape: 'ring', text: this.text('waiting', { count: ahead }) });
	}

	working(key: number, label: 'submitting' | 'downloading' | 'listing'): void {
		this.update(key, { fill: 'blue', shape: 'dot', text: this.text(label) });
	}

	progress(key: number, p: Pick<JobProgress, 'status' | 'queuePosition' | 'progress'>): void {
		if (p.status === 'queued') {
			const text =
				p.queuePosition === undefined
					? this.text('queuedNoPosition')
					: this.text('queued', { position: p.queuePosition });
			this.update(key, { fill: 'blue', shape: 'ring', text });
		} else {
			const text =
				p.progress === undefined
					? this.text('runningNoPercent')
					: this.text('running', { percent: Math.round(p.progress * 100) });
			this.update(key, { fill: 'blue', shape: 'dot', text });
		}
	}

	done(key: number, text = this.text('done')): void {
		this.active.delete(key);
		this.show({ fill: 'green', shape: 'dot', text: this.withCount(text, this.active.size) });
		if (this.active.size === 0) this.scheduleClear();
	}

	failed(key: number, reason: string): void {
		this.active.delete(key);
		this.show({ fill: 'red', shape: 'ring', text: this.withCount(reason, this.active.size) });
	}

	/** Ends a message without a status of its own (e.g. aborted on close). */
	drop(key: number): void {
		this.active.delete(key);
	}

	dispose(): void {
		if (this.clearTimer) clearTimeout(this.clearTimer);
		this.clearTimer = undefined;
		this.node.status({});
	}

	private update(key: number, status: NodeStatus): void {
		this.active.delete(key);
		this.active.set(key, status);
		this.show({ ...status, text: this.withCount(status.text ?? '', this.active.size - 1) });
	}

	/** Appends "(+N)" for the other messages still in flight. */
	private withCount(text: string, others: number): string {
		return others > 0 ? `${text} ${this.text('more', { count: others })}` : text;
	}

	private show(status: NodeStatus): void {
		if (this.clearTimer) clearTimeout(this.clearTimer);
		this.clearTimer = undefined;
		this.node.status(status);
	}

	private scheduleClear(): void {
		this.clearTimer = setTimeout(() => {
			this.clearTimer = undefined;
			if (this.active.size === 0) this.node.status({});
		}, DONE_CLEAR_MS);
		this.clearTimer.unref?.();
	}

	private text(name: string, params?: Record<string, unknown>): string {
		return this.t(`${this.prefix}.status.${name}`, params);
	}
}
