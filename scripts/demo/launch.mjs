// Runs one of the TypeScript entry points of scripts/ (demo, editors, screenshots) on the Node
// that runs npm: builds dist/ first when it is missing or older than the sources, bundles the
// entry's own TypeScript with esbuild (node_modules stay external) and runs it in this process.
// Usage: node scripts/demo/launch.mjs <entry.ts> [--no-build] [entry options...]
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCES = ['core', 'emulator', 'nodes', 'credentials', 'node-red', 'icons', 'package.json'];

function newestMtime(path) {
	if (!existsSync(path)) return 0;
	const stat = statSync(path);
	if (!stat.isDirectory()) return stat.mtimeMs;
	let newest = 0;
	for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
	return newest;
}

/** dist/ counts as fresh when it exists and was written after every source file changed. */
function distIsFresh() {
	const marker = join(root, 'dist', 'node-red', 'render-generate.js');
	if (!existsSync(marker)) return false;
	const built = statSync(marker).mtimeMs;
	return SOURCES.every((name) => newestMtime(join(root, name)) <= built);
}

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
	process.stderr.write('usage: node scripts/demo/launch.mjs <entry.ts> [--no-build] [options]\n');
	process.exit(2);
}
const noBuild = rest.includes('--no-build');
const args = rest.filter((arg) => arg !== '--no-build');

if (!distIsFresh()) {
	if (noBuild) {
		process.stderr.write('dist/ is missing or older than the sources: run `npm run build`.\n');
		if (!existsSync(join(root, 'dist', 'node-red', 'render-generate.js'))) process.exit(1);
	} else {
		process.stderr.write('Building the package (dist/ is missing or older than the sources)...\n');
		execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
			cwd: root,
			stdio: 'inherit',
		});
	}
}

// Two folders deep like scripts/<area>/, so paths computed from __dirname hold in both places.
const outfile = join(
	root,
	'.cache',
	'scripts',
	`${basename(dirname(entry))}-${basename(entry, '.ts')}.cjs`,
);
await build({
	entryPoints: [join(root, entry)],
	outfile,
	bundle: true,
	platform: 'node',
	target: 'node20',
	format: 'cjs',
	packages: 'external',
	sourcemap: 'inline',
	logLevel: 'warning',
});
// Stack traces then point at the TypeScript sources (the bundle carries an inline source map).
process.setSourceMapsEnabled(true);
const { main } = createRequire(import.meta.url)(outfile);
rmSync(outfile, { force: true });
await main(args);
