/**
 * The durable job ledger that connects Generate Media ("Submit Only") with the Render Service
 * Trigger, possibly in another workflow or after a restart. One small JSON file per job under
 * the n8n user folder; every write is atomic (write a temporary file, then rename). A job moves
 * `pending/` -> `claimed/` (when a trigger is about to emit it) -> `delivered/` (when the
 * execution it started has ended); each move is a rename, which succeeds for exactly one caller
 * on a local file system. A claim left behind by a process that died is put back into
 * `pending/`, so a crash can repeat a delivery but never lose one. The API key is never written.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';

export interface LedgerEntry {
	version: 1;
	jobId: string;
	/** Queue address of the credential that submitted the job; triggers match on it. */
	asyncUrl: string;
	baseUrl: string;
	jobUrl: string;
	idempotencyKey: string;
	modality: string;
	family: string;
	model: string;
	task: string;
	format: string;
	prompt: string;
	/** ISO time. */
	submittedAt: string;
	workflowId?: string;
	workflowName?: string;
	executionId?: string;
	nodeName?: string;
	/** Present on an entry put back into `pending/` after its claimant crashed. */
	claimant?: Claimant;
	previousClaimants?: Claimant[];
}

export type Outcome = 'delivered' | 'failed' | 'ignored';

/** Who holds a claim: enough to tell later whether that process is still running. */
export interface Claimant {
	pid: number;
	/** Random per process start, so a new process that got the same pid is told apart. */
	bootId: string;
	host: string;
	/** `<workflowId>/<trigger node id>`. */
	by: string;
	/** ISO time. */
	claimedAt: string;
}

export interface ClaimedEntry extends LedgerEntry {
	outcome: Exclude<Outcome, 'ignored'>;
	claimant: Claimant;
	/** The claimant of an earlier claim that was abandoned by a crash. */
	previousClaimants?: Claimant[];
}

export interface DeliveredEntry extends LedgerEntry {
	outcome: Outcome;
	deliveredAt: string;
	/** `<workflowId>/<trigger node id>` of the trigger that claimed it. */
	deliveredBy: string;
	claimant?: Claimant;
	previousClaimants?: Claimant[];
	/** Why n8n reported the triggered execution as not finished normally (it still got the item). */
	executionError?: string;
}

/** A claim this process holds: the file under `claimed/`. */
export interface Claim {
	jobId: string;
	file: string;
	entry: ClaimedEntry;
}

/** A claim whose claimant is gone, found by {@link JobLedger.orphans}. */
export interface Orphan {
	jobId: string;
	file: string;
	pid: number;
	bootId: string;
}

const BOOT_KEY = Symbol.for('@render-service/n8n-nodes-render.bootId');

/**
 * This process's boot ID. Kept on `globalThis` so that two copies of this module in one
 * process (n8n reloading a community package) agree, and never take each other for a crash.
 */
export function bootId(): string {
	const holder = globalThis as unknown as Record<symbol, string | undefined>;
	return (holder[BOOT_KEY] ??= randomBytes(8).toString('hex'));
}

/** True while a process with this pid exists (EPERM: it exists but is not ours). */
export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Whether a claim made by `pid`/`boot` was abandoned: its process is gone or was restarted. */
export function claimantGone(
	pid: number,
	boot: string,
	isAlive: (pid: number) => boolean = pidAlive,
): boolean {
	if (pid === process.pid) return boot !== bootId();
	return !isAlive(pid);
}

/**
 * `<N8N_USER_FOLDER or home>/.n8n/render-service/jobs`, the same rule n8n uses for its own
 * folder, so every n8n process of one installation shares it. RENDER_SERVICE_LEDGER_DIR
 * overrides it (e.g. a shared disk in queue mode).
 */
export function ledgerDir(env: NodeJS.ProcessEnv = process.env): string {
	if (env.RENDER_SERVICE_LEDGER_DIR) return env.RENDER_SERVICE_LEDGER_DIR;
	const userFolder = env.N8N_USER_FOLDER || homedir();
	return join(userFolder, '.n8n', 'render-service', 'jobs');
}

/** A file name for a job ID that cannot escape the folder. */
export function fileNameFor(jobId: string): string {
	const safe = /^[A-Za-z0-9_-]{1,120}$/.test(jobId)
		? jobId
		: `b64-${Buffer.from(jobId).toString('base64url')}`;
	return `${safe}.json`;
}

async function writeAtomically(path: string, data: unknown): Promise<void> {
	const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
	await writeFile(temporary, JSON.stringify(data, null, 2), { mode: 0o600 });
	await rename(temporary, path);
}

const CLAIM_NAME = /^([^.]+)\.(\d+)-([0-9A-Za-z]+)\.json$/;

function isMissing(error: unknown): boolean {
	return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class JobLedger {
	readonly pendingDir: string;
	readonly claimedDir: string;
	readonly deliveredDir: string;

	constructor(readonly dir: string = ledgerDir()) {
		this.pendingDir = join(dir, 'pending');
		this.claimedDir = join(dir, 'claimed');
		this.deliveredDir = join(dir, 'delivered');
	}

	async record(entry: LedgerEntry): Promise<void> {
		await mkdir(this.pendingDir, { recursive: true, mode: 0o700 });
		await writeAtomically(join(this.pendingDir, fileNameFor(entry.jobId)), entry);
	}

	/** Every readable pending entry; unreadable files are skipped (being written, or foreign). */
	async pending(): Promise<LedgerEntry[]> {
		const names = await this.list(this.pendingDir);
		const entries: LedgerEntry[] = [];
		for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
			const entry = await this.read(join(this.pendingDir, name));
			if (entry) entries.push(entry);
		}
		return entries;
	}

	async isPending(jobId: string): Promise<boolean> {
		try {
			await stat(join(this.pendingDir, fileNameFor(jobId)));
			return true;
		} catch {
			return false;
		}
	}

	/**
	 * Settles a job without an emit (a failure the trigger ignores): moves it straight from
	 * `pending/` to `delivered/`. True for exactly one caller across every process that shares
	 * the folder; false when the job was already claimed (or never recorded).
	 */
	async claim(entry: LedgerEntry, outcome: Outcome, deliveredBy: string): Promise<boolean> {
		const target = join(this.deliveredDir, fileNameFor(entry.jobId));
		await mkdir(this.deliveredDir, { recursive: true, mode: 0o700 });
		if (!(await this.move(join(this.pendingDir, fileNameFor(entry.jobId)), target))) return false;
		await writeAtomically(target, {
			...entry,
			outcome,
			deliveredAt: new Date().toISOString(),
			deliveredBy,
		} satisfies DeliveredEntry);
		return true;
	}

	/**
	 * Claims a job for one emit: renames `pending/<job>.json` to
	 * `claimed/<job>.<pid>-<bootId>.json`. The claimant is in the name, so it is known from the
	 * very rename that makes the claim exclusive (no moment where a claim has no owner), and a
	 * crashed claimant's file name never comes back. The file then records the claimant in full.
	 * Undefined when another caller claimed it first.
	 */
	async take(
		entry: LedgerEntry,
		outcome: ClaimedEntry['outcome'],
		by: string,
	): Promise<Claim | undefined> {
		const base = fileNameFor(entry.jobId).slice(0, -'.json'.length);
		const claimant: Claimant = {
			pid: process.pid,
			bootId: bootId(),
			host: hostname(),
			by,
			claimedAt: new Date().toISOString(),
		};
		const file = join(this.claimedDir, `${base}.${claimant.pid}-${claimant.bootId}.json`);
		await mkdir(this.claimedDir, { recursive: true, mode: 0o700 });
		if (!(await this.move(join(this.pendingDir, `${base}.json`), file))) return undefined;
		// The file as it was claimed: it names earlier claimants if a crash put it back.
		const moved = (await this.read(file)) ?? entry;
		const { claimant: earlier, previousClaimants = [], ...rest } = moved;
		const claimed: ClaimedEntry = {
			...rest,
			outcome,
			claimant,
			...(earlier ? { previousClaimants: [...previousClaimants, earlier] } : {}),
		};
		await writeAtomically(file, claimed);
		return { jobId: entry.jobId, file, entry: claimed };
	}

	/**
	 * The triggered execution has ended: moves the claim to `delivered/`. False when the claim
	 * is no longer there (it was taken over as an orphan, which only a crash should allow).
	 */
	async complete(claim: Claim, executionError?: string): Promise<boolean> {
		const target = join(this.deliveredDir, fileNameFor(claim.jobId));
		await mkdir(this.deliveredDir, { recursive: true, mode: 0o700 });
		if (!(await this.move(claim.file, target))) return false;
		const delivered: DeliveredEntry = {
			...claim.entry,
			deliveredAt: new Date().toISOString(),
			deliveredBy: claim.entry.claimant.by,
			...(executionError ? { executionError } : {}),
		};
		await writeAtomically(target, delivered);
		return true;
	}

	/** Gives a claim back to `pending/` (the emit itself failed, so nothing was delivered). */
	async release(claim: Claim): Promise<boolean> {
		return await this.move(claim.file, join(this.pendingDir, fileNameFor(claim.jobId)));
	}

	/** Claims whose claimant process is gone: a crash between claim and the execution's end. */
	async orphans(isAlive: (pid: number) => boolean = pidAlive): Promise<Orphan[]> {
		const found: Orphan[] = [];
		for (const name of (await this.list(this.claimedDir)).sort()) {
			const match = CLAIM_NAME.exec(name);
			if (!match) continue;
			const [, , pid, boot] = match as unknown as [string, string, string, string];
			if (!claimantGone(Number(pid), boot, isAlive)) continue;
			const entry = await this.read(join(this.claimedDir, name));
			if (!entry) continue;
			found.push({
				jobId: entry.jobId,
				file: join(this.claimedDir, name),
				pid: +pid,
				bootId: boot,
			});
		}
		return found;
	}

	/**
	 * Puts an orphan back into `pending/` so it is delivered again. True for exactly one caller:
	 * the orphan's file name is unique to the dead claim, so it can be moved only once.
	 */
	async requeue(orphan: Orphan): Promise<boolean> {
		return await this.move(orphan.file, join(this.pendingDir, fileNameFor(orphan.jobId)));
	}

	async claimed(jobId: string): Promise<ClaimedEntry[]> {
		const base = fileNameFor(jobId).slice(0, -'.json'.length);
		const entries: ClaimedEntry[] = [];
		for (const name of await this.list(this.claimedDir)) {
			if (CLAIM_NAME.exec(name)?.[1] !== base) continue;
			const entry = await this.read(join(this.claimedDir, name));
			if (entry) entries.push(entry as ClaimedEntry);
		}
		return entries;
	}

	async delivered(jobId: string): Promise<DeliveredEntry | undefined> {
		return (await this.read(join(this.deliveredDir, fileNameFor(jobId)))) as
			| DeliveredEntry
			| undefined;
	}

	/** Removes delivery records older than `maxAgeMs` so the folder does not grow forever. */
	async prune(maxAgeMs: number, now = Date.now()): Promise<void> {
		let names: string[];
		try {
			names = await readdir(this.deliveredDir);
		} catch {
			return;
		}
		for (const name of names) {
			const path = join(this.deliveredDir, name);
			const info = await stat(path).catch(() => undefined);
			if (info && now - info.mtimeMs > maxAgeMs) await rm(path, { force: true });
		}
	}

	/** Names in a folder; none when it does not exist yet. */
	private async list(dir: string): Promise<string[]> {
		try {
			return await readdir(dir);
		} catch (error) {
			if (isMissing(error)) return [];
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the caller reports it with its node
			throw error;
		}
	}

	/** An exclusive rename: false when the source is gone (someone else moved it first). */
	private async move(from: string, to: string): Promise<boolean> {
		try {
			await rename(from, to);
			return true;
		} catch (error) {
			if (isMissing(error)) return false;
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the caller reports it with its node
			throw error;
		}
	}

	private async read(path: string): Promise<LedgerEntry | undefined> {
		try {
			const parsed = JSON.parse(await readFile(path, 'utf8')) as LedgerEntry;
			return typeof parsed?.jobId === 'string' && typeof parsed.asyncUrl === 'string'
				? parsed
				: undefined;
		} catch {
			return undefined;
		}
	}
}
