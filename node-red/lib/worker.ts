/**
 * The message loop shared by the working nodes: bounded concurrency, status, `done(err)` for
 * Catch nodes, and a close handler that aborts everything in flight and sends nothing more.
 */
import { reportError } from './errors';
import type { Translate } from './i18n';
import { Limiter } from './limiter';
import type { DoneFn, NodeMessage, Outgoing, RedNode, SendFn } from './red';
import { StatusBoard } from './status';

export interface WorkContext {
	signal: AbortSignal;
	key: number;
	board: StatusBoard;
}

export interface WorkResult {
	out: Outgoing | null;
	/** Text for the green status; default "done". */
	statusText?: string;
}

export interface WorkerOptions {
	node: RedNode;
	t: Translate;
	/** Locale prefix, i.e. the node type. */
	prefix: string;
	limit: number;
	secrets: () => string[];
	handle(msg: NodeMessage, ctx: WorkContext): Promise<WorkResult>;
	onClose?(removed: boolean): Promise<void> | void;
}

export interface Worker {
	process(msg: NodeMessage, send: SendFn, done: DoneFn): void;
	board: StatusBoard;
	limiter: Limiter;
}

export function startWorker(options: WorkerOptions): Worker {
	const { node, t, prefix } = options;
	const limiter = new Limiter(options.limit);
	const board = new StatusBoard(node, t, prefix);
	const inFlight = new Set<Promise<void>>();

	const secrets = (): string[] => {
		try {
			return options.secrets();
		} catch {
			return [];
		}
	};

	const process = (msg: NodeMessage, send: SendFn, done: DoneFn): void => {
		const key = board.open();
		if (limiter.active >= options.limit) board.waiting(key, limiter.queued + 1);
		const work = limiter
			.run((signal) => options.handle(msg, { signal, key, board }))
			.then(
				(result) => {
					if (limiter.closed) return closedWhileWorking(key, done);
					if (result.out) send(result.out);
					board.done(key, result.statusText);
					done();
				},
				(err: unknown) => {
					if (limiter.closed) return closedWhileWorking(key, done);
					const jobId = typeof msg.jobId === 'string' ? msg.jobId : undefined;
					const reported = reportError(err, t, prefix, secrets(), jobId);
					if (reported.jobId) msg.jobId = reported.jobId;
					board.failed(key, reported.reason);
					done(reported.error);
				},
			)
			.finally(() => inFlight.delete(work));
		inFlight.add(work);
	};

	// Work cut short by close ends quietly: the flow is going away, so nothing is sent and
	// no error reaches a Catch node.
	const closedWhileWorking = (key: number, done: DoneFn): void => {
		board.drop(key);
		done();
	};

	node.on('input', process);
	node.on('close', (removed: boolean, closeDone: () => void) => {
		limiter.abortAll();
		void Promise.allSettled([...inFlight])
			.then(() => options.onClose?.(removed))
			.catch((err: unknown) => node.warn(reportError(err, t, prefix, secrets()).error.message))
			.finally(() => {
				board.dispose();
				closeDone();
			});
	});
	return { process, board, limiter };
}
