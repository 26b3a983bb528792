/**
 * `npm run demo`: starts the emulator in this process, runs the example n8n workflow and the
 * example Node-RED flow headless against it, writes the generated files to demo-output/ and
 * prints what was made. Everything it starts is stopped before it returns.
 */
import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { EmulatorOptions, RunningEmulator } from '../../emulator';
import { runN8nWorkflow, loadWorkflow } from './n8n-headless';
import { loadFlow, runNodeRedFlow } from './node-red-headless';
import { DIST, N8N_WORKFLOW_FILE, NODE_RED_FLOW_FILE, REPO_ROOT } from './paths';
import { formatTable, type DemoRow } from './report';

export interface DemoOptions {
	/** Where the files go. Default: demo-output/ in the repository. */
	outDir?: string;
	/** Emulator job timing, in ms (defaults: the emulator's own, 300 queued + 1500 running). */
	queueMs?: number;
	runMs?: number;
	log?: (line: string) => void;
}

export interface DemoResult {
	outDir: string;
	rows: DemoRow[];
}

function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
	// Loaded from dist/ like the nodes: the demo shows what the package ships.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { createEmulator } = require(`${DIST}/emulator`) as typeof import('../../emulator');
	return createEmulator(options);
}

export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
	const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
	const outDir = resolve(options.outDir ?? `${REPO_ROOT}/demo-output`);
	await mkdir(outDir, { recursive: true });
	const emulator = await startEmulator({
		port: 0,
		queueMs: options.queueMs,
		runMs: options.runMs,
	});
	try {
		const access = {
			apiKey: emulator.apiKey,
			baseUrl: emulator.baseUrl,
			asyncUrl: emulator.asyncUrl,
		};
		log(
			`Emulator: catalogue ${emulator.baseUrl}, queue ${emulator.asyncUrl}, CDN ${emulator.cdnUrl}`,
		);
		log("Running the n8n workflow in n8n's engine (n8n-core WorkflowExecute)...");
		const n8nRows = await runN8nWorkflow(await loadWorkflow(N8N_WORKFLOW_FILE), access, outDir);
		log('Running the Node-RED flow in an embedded Node-RED...');
		const redRows = await runNodeRedFlow(await loadFlow(NODE_RED_FLOW_FILE), access, outDir);
		return { outDir, rows: [...n8nRows, ...redRows] };
	} finally {
		await emulator.close();
	}
}

function printResult(result: DemoResult): void {
	const rows = result.rows.map((row) => ({ ...row, file: relative(process.cwd(), row.file) }));
	process.stdout.write(`\n${formatTable(rows)}\n\n`);
	for (const row of rows) process.stdout.write(`  ${row.file}: "${row.prompt}"\n`);
	process.stdout.write(
		`\n${rows.length} files in ${relative(process.cwd(), result.outDir) || '.'}/\n`,
	);
}

export async function main(argv: string[]): Promise<void> {
	const { values } = parseArgs({
		args: argv,
		options: {
			out: { type: 'string' },
			'queue-ms': { type: 'string' },
			'run-ms': { type: 'string' },
		},
	});
	const num = (v: string | undefined): number | undefined =>
		v === undefined ? undefined : Number(v);
	try {
		const result = await runDemo({
			outDir: values.out,
			queueMs: num(values['queue-ms']),
			runMs: num(values['run-ms']),
		});
		printResult(result);
		// Node-RED's stopped runtime can leave idle timers behind; nothing else is running.
		process.exit(0);
	} catch (error) {
		process.stderr.write(`demo failed: ${error instanceof Error ? error.stack : String(error)}\n`);
		process.exit(1);
	}
}
