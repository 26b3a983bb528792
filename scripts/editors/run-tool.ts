/**
 * Runs a command to completion in its own process group (like n8n's CLI, which starts task
 * runners) and registers a kill of that group on `cleanup`, so Ctrl+C mid-command leaves
 * nothing behind.
 */
import { spawn } from 'node:child_process';
import type { Cleanup } from './cleanup';

export interface ToolResult {
	code: number | null;
	output: string;
}

function killGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, 'SIGKILL');
	} catch {
		// Already gone.
	}
}

export async function runTool(
	command: string,
	args: string[],
	options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs: number },
	cleanup: Cleanup,
): Promise<ToolResult> {
	const child = spawn(command, args, {
		env: options.env,
		cwd: options.cwd,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	const keep = (chunk: Buffer): void => {
		output = (output + chunk.toString()).slice(-100_000);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	let finished = false;
	cleanup.add(async () => {
		if (!finished) killGroup(child.pid);
	});
	const timer = setTimeout(() => killGroup(child.pid), options.timeoutMs);
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	finished = true;
	clearTimeout(timer);
	// Helpers it started must not outlive it.
	killGroup(child.pid);
	return { code, output };
}
