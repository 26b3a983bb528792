/**
 * The `render-service-emulator` command: prints its three addresses and the demo key, serves
 * the catalogue and the whole job flow, honours its flags, and stops cleanly on SIGTERM/SIGINT.
 * The CLI is bundled from source with esbuild so the test does not depend on a prior build.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { BUILT_IN_MODELS, DEMO_API_KEY } from '../../emulator';

const dir = mkdtempSync(join(tmpdir(), 'emu-cli-'));
const cli = join(dir, 'cli.js');

beforeAll(() => {
	buildSync({
		entryPoints: [join(__dirname, '../../emulator/cli.ts')],
		bundle: true,
		platform: 'node',
		target: 'node20',
		outfile: cli,
		logLevel: 'silent',
	});
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
	child: ChildProcess;
	output: () => string;
	urls: { base: string; async: string; cdn: string };
}

function start(args: string[]): Promise<Started> {
	const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	return new Promise((resolve, reject) => {
		const onData = (chunk: Buffer): void => {
			out += chunk.toString();
			const base = /base_url.*?(http:\/\/\S+)/.exec(out)?.[1];
			const asyncUrl = /async_url.*?(http:\/\/\S+)/.exec(out)?.[1];
			const cdn = /CDN:\s+(http:\/\/\S+)/.exec(out)?.[1];
			if (base && asyncUrl && cdn)
				resolve({ child, output: () => out, urls: { base, async: asyncUrl, cdn } });
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		child.once('exit', (code) => reject(new Error(`CLI exited early (${code}): ${out}`)));
	});
}

function exitOf(child: ChildProcess): Promise<number | null> {
	return new Promise((resolve) => {
		if (child.exitCode !== null) resolve(child.exitCode);
		else child.once('exit', (code) => resolve(code));
	});
}

describe('render-service-emulator CLI', () => {
	it('prints addresses and the demo key, serves a whole job, and stops on SIGTERM', async () => {
		const { child, output, urls } = await start([
			'--port',
			'0',
			'--queue-ms',
			'10',
			'--run-ms',
			'40',
			'--large-result-mb',
			'1',
		]);
		try {
			expect(output()).toContain(DEMO_API_KEY);
			const headers = { authorization: `Bearer ${DEMO_API_KEY}` };
			const models = await fetch(`${urls.base}/models`, { headers });
			expect(models.status).toBe(200);
			const submitted = await fetch(`${urls.async}/queue`, {
				method: 'POST',
				headers: { ...headers, 'content-type': 'application/json' },
				body: JSON.stringify({
					modality: 'image',
					family: 'flux',
					model: 'schnell',
					task: 't2i',
					format: '512',
					prompt: 'cli',
				}),
			});
			const { id } = (await submitted.json()) as { id: string };
			let location: string | null = null;
			for (let i = 0; i < 200 && !location; i++) {
				const r = await fetch(`${urls.async}/jobs/${id}`, { headers, redirect: 'manual' });
				location = r.status === 303 ? r.headers.get('location') : null;
				await r.arrayBuffer();
				if (!location) await new Promise((resolve) => setTimeout(resolve, 10));
			}
			expect(location?.startsWith(urls.cdn)).toBe(true);
			const file = Buffer.from(await (await fetch(location as string)).arrayBuffer());
			expect(file.length).toBe(1024 * 1024);
			expect(output()).not.toMatch(/Bearer/);
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exitOf(child)).toBe(0);
	});

	it('stops cleanly on SIGINT, and the admin flag enables /__admin', async () => {
		const { child, urls } = await start(['--port', '0', '--admin', '--quiet']);
		try {
			const counters = await fetch(`${urls.async}/__admin/counters`);
			expect(counters.status).toBe(200);
		} finally {
			child.kill('SIGINT');
		}
		expect(await exitOf(child)).toBe(0);
	});

	it('loads a catalogue file with --models and reports a bad one', async () => {
		const file = join(dir, 'catalogue.json');
		writeFileSync(file, JSON.stringify({ models: [BUILT_IN_MODELS[0]] }));
		const { child, urls } = await start(['--port', '0', '--models', file, '--quiet']);
		try {
			const res = await fetch(`${urls.base}/models`, {
				headers: { authorization: `Bearer ${DEMO_API_KEY}` },
			});
			expect(((await res.json()) as { models: unknown[] }).models).toEqual([BUILT_IN_MODELS[0]]);
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exitOf(child)).toBe(0);
		const bad = spawn(
			process.execPath,
			[cli, '--port', '0', '--models', join(dir, 'missing.json')],
			{ stdio: 'pipe' },
		);
		let err = '';
		bad.stderr.on('data', (c: Buffer) => (err += c.toString()));
		expect(await exitOf(bad)).toBe(1);
		expect(err).toMatch(/missing\.json/);
	});
});
