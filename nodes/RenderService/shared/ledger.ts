/**
 * The durable job ledger that connects Generate Media ("Submit Only") with the Render Service
 * Trigger, possibly in another workflow or after a restart. One small JSON file per job under
 * the n8n user folder; every write is atomic (write a temporary file, then rename), and a
 * delivery is claimed by renaming `pending/<job>.json` to `delivered/<job>.json`, which
 * succeeds for exactly one claimant on a local file system. The API key is never written.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
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
}

export interface DeliveredEntry extends LedgerEntry {
	outcome: 'delivered' | 'failed' | 'ignored';
	deliveredAt: string;
	/** `<workflowId>/<trigger node id>` of the trigger that claimed it. */
	deliveredBy: string;
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

export class JobLedger {
	readonly pendingDir: string;
	readonly deliveredDir: string;

	constructor(readonly dir: string = ledgerDir()) {
		this.pendingDir = join(dir, 'pending');
		this.deliveredDir = join(dir, 'delivered');
	}

	async record(entry: LedgerEntry): Promise<void> {
		await mkdir(this.pendingDir, { recursive: true, mode: 0o700 });
		await writeAtomically(join(this.pendingDir, fileNameFor(entry.jobId)), entry);
	}

	/** Every readable pending entry; unreadable files are skipped (being written, or foreign). */
	async pending(): Promise<LedgerEntry[]> {
		let names: string[];
		try {
			names = await readdir(this.pendingDir);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the caller reports it with its node
			throw error;
		}
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
	 * Claims the job for one delivery. True for exactly one caller across every process that
	 * shares the folder; false when the job was already claimed (or never recorded).
	 */
	async claim(
		entry: LedgerEntry,
		outcome: DeliveredEntry['outcome'],
		deliveredBy: string,
	): Promise<boolean> {
		const name = fileNameFor(entry.jobId);
		const target = join(this.deliveredDir, name);
		await mkdir(this.deliveredDir, { recursive: true, mode: 0o700 });
		try {
			await rename(join(this.pendingDir, name), target);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the caller reports it with its node
			throw error;
		}
		const delivered: DeliveredEntry = {
			...entry,
			outcome,
			deliveredAt: new Date().toISOString(),
			deliveredBy,
		};
		await writeAtomically(target, delivered);
		return true;
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
