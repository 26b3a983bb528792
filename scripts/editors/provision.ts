/**
 * First-use installs for the editors: runs scripts/e2e's provisioning scripts with their
 * progress lines on this terminal, and returns the folder each prints.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../demo/paths';

async function runScript(name: string): Promise<string> {
	const child = spawn('bash', [join(REPO_ROOT, 'scripts', 'e2e', name)], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	const folder = stdout.trim().split('\n').pop() ?? '';
	if (code !== 0 || !existsSync(folder)) throw new Error(`scripts/e2e/${name} failed (${code})`);
	return folder;
}

export interface Runtimes {
	/** Node 24's folder (bin/node, headers). */
	nodeDir: string;
	node: string;
	n8nCli: string;
	nodeRedJs: string;
}

/** Node 24, n8n and Node-RED 5 from the cache, installed into it on first use. */
export async function provisionRuntimes(log: (line: string) => void): Promise<Runtimes> {
	log('Checking the cached Node 24, n8n and Node-RED 5 (the first run installs them)...');
	const nodeDir = await runScript('provision-node24.sh');
	const n8n = await runScript('install-n8n.sh');
	const nodeRed = await runScript('install-node-red.sh');
	return {
		nodeDir,
		node: join(nodeDir, 'bin', 'node'),
		n8nCli: join(n8n, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeRedJs: join(nodeRed, 'node_modules', 'node-red', 'red.js'),
	};
}
