#!/usr/bin/env node
/**
 * `render-service-emulator`: runs the emulator until SIGINT/SIGTERM and prints its three
 * addresses and the demo API key.
 */
import { parseArgs } from 'node:util';
import { createEmulator } from './server';
import type { EmulatorOptions } from './types';

const USAGE = `Usage: render-service-emulator [options]

  --port N             catalogue port (async = N+1, CDN = N+2); 0 = ephemeral (default 8080)
  --host H             interface to listen on (default 127.0.0.1)
  --models FILE        JSON catalogue ({"models":[...]} or [...]) instead of the built-in one
  --queue-ms N         minimum time a job stays queued (default 300)
  --run-ms N           run time of a job once a worker takes it (default 1500)
  --concurrency N      worker pool size (default 4)
  --large-result-mb N  pad every result file to about N MB (memory benchmark)
  --api-key KEY        accept this key instead of the demo key (repeatable)
  --admin              enable the /__admin routes on the async origin
  --quiet              do not log requests
  --help               show this text`;

function options(argv: string[]): EmulatorOptions & { quiet: boolean } {
	const { values } = parseArgs({
		args: argv,
		options: {
			port: { type: 'string', default: '8080' },
			host: { type: 'string' },
			models: { type: 'string' },
			'queue-ms': { type: 'string' },
			'run-ms': { type: 'string' },
			concurrency: { type: 'string' },
			'large-result-mb': { type: 'string' },
			'api-key': { type: 'string', multiple: true },
			admin: { type: 'boolean', default: false },
			quiet: { type: 'boolean', default: false },
			help: { type: 'boolean', default: false },
		},
	});
	if (values.help) {
		process.stdout.write(`${USAGE}\n`);
		process.exit(0);
	}
	const num = (name: string, v: string | undefined): number | undefined => {
		if (v === undefined) return undefined;
		const n = Number(v);
		if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
		return n;
	};
	const mb = num('large-result-mb', values['large-result-mb']);
	return {
		port: num('port', values.port),
		host: values.host,
		models: values.models,
		queueMs: num('queue-ms', values['queue-ms']),
		runMs: num('run-ms', values['run-ms']),
		concurrency: num('concurrency', values.concurrency),
		resultPadBytes: mb === undefined ? undefined : Math.round(mb * 1024 * 1024),
		apiKeys: values['api-key'],
		admin: values.admin,
		quiet: values.quiet,
	};
}

async function main(): Promise<void> {
	const { quiet, ...opts } = options(process.argv.slice(2));
	const log = (line: string): void =>
		void process.stdout.write(`${new Date().toISOString()} ${line}\n`);
	const emulator = await createEmulator({ ...opts, log: quiet ? undefined : log });
	process.stdout.write(
		[
			'Render Service emulator is running.',
			`  base_url  (catalogue): ${emulator.baseUrl}`,
			`  async_url (queue):     ${emulator.asyncUrl}`,
			`  CDN:                   ${emulator.cdnUrl}`,
			`  API key:               ${opts.apiKeys?.length ? '(the one you passed)' : emulator.apiKey}`,
			opts.admin ? `  admin:                 ${emulator.asyncUrl}/__admin/counters` : '',
			'Stop with Ctrl+C.',
			'',
		]
			.filter((line, i, all) => line !== '' || i === all.length - 1)
			.join('\n'),
	);
	let stopping = false;
	const stop = (): void => {
		if (stopping) return;
		stopping = true;
		emulator.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
	process.stderr.write(
		`render-service-emulator: ${err instanceof Error ? err.message : String(err)}\n`,
	);
	process.exit(1);
});
