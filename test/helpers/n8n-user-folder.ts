/**
 * A temp N8N_USER_FOLDER for in-process n8n specs: the nodes keep their job ledger under it, so
 * each spec (or each test) starts with an empty ledger and leaves nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempUserFolder {
	/** The current folder; set in the set-up hook. */
	readonly path: string;
}

/**
 * Registers hooks that point N8N_USER_FOLDER at a fresh temp folder, before each test
 * (`'each'`) or once for the file (`'all'`), and remove it and put the previous value back
 * afterwards. Hooks of one kind run in the order declared: an afterEach that must finish before
 * the folder goes (closing triggers) is declared before this call.
 */
export function tempN8nUserFolder(prefix: string, scope: 'each' | 'all'): TempUserFolder {
	const previous = process.env.N8N_USER_FOLDER;
	const folder = { path: '' };
	const [setUp, tearDown] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];
	setUp(() => {
		folder.path = mkdtempSync(join(tmpdir(), prefix));
		process.env.N8N_USER_FOLDER = folder.path;
	});
	tearDown(() => {
		rmSync(folder.path, { recursive: true, force: true });
		if (previous === undefined) delete process.env.N8N_USER_FOLDER;
		else process.env.N8N_USER_FOLDER = previous;
	});
	return folder;
}
