/**
 * `npm run editors`: real n8n and Node-RED 5 editors with this package loaded and wired to the
 * local emulator, until Ctrl+C.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Cleanup } from './cleanup';
import { startEditors, type RunningEditors } from './editors';

function banner(editors: RunningEditors): string {
	const { emulator, n8n, nodeRed, login } = editors;
	return [
		'',
		'Everything is running:',
		`  n8n       ${n8n.url}   login ${login.email} / ${login.password}`,
		`            workflows: ${n8n.workflows.map((w) => `"${w.name}"`).join(', ')}`,
		`            credential "Render Service Emulator" points at the emulator`,
		`  Node-RED  ${nodeRed.url}   flow "Render Service demo" deployed (click an Inject node)`,
		`  emulator  catalogue ${emulator.baseUrl}, queue ${emulator.asyncUrl}, CDN ${emulator.cdnUrl}`,
		`            API key ${emulator.apiKey}`,
		`  files     ${relative(process.cwd(), editors.filesDir) || '.'}/ (Node-RED writes here)`,
		'Stop everything with Ctrl+C.',
		'',
	].join('\n');
}

export async function main(argv: string[]): Promise<void> {
	const { values } = parseArgs({
		args: argv,
		options: {
			'n8n-port': { type: 'string', default: '5678' },
			'node-red-port': { type: 'string', default: '1880' },
			'emulator-port': { type: 'string', default: '8080' },
		},
	});
	const cleanup = new Cleanup();
	let stopping = false;
	const stop = (code: number): void => {
		if (stopping) return;
		stopping = true;
		process.stdout.write('\nStopping n8n, Node-RED and the emulator...\n');
		void cleanup.run().finally(() => process.exit(code));
	};
	process.on('SIGINT', () => stop(0));
	process.on('SIGTERM', () => stop(0));
	try {
		const editors = await startEditors(cleanup, {
			n8nPort: Number(values['n8n-port']),
			nodeRedPort: Number(values['node-red-port']),
			emulatorPort: Number(values['emulator-port']),
		});
		if (!stopping) process.stdout.write(banner(editors));
	} catch (error) {
		if (stopping) return;
		process.stderr.write(
			`editors failed: ${error instanceof Error ? error.stack : String(error)}\n`,
		);
		stop(1);
	}
}
