// Bundles each Node-RED node's runtime (node-red/<name>.ts) into one CommonJS file,
// dist/node-red/<name>.js, with the client core, axios and eventsource inlined: the published
// package keeps no runtime dependencies. Editor HTML, locales and icons are copied beside it
// (scripts/build.mjs copies them too; doing it here keeps `--outdir` builds self-contained).
// Usage: node scripts/bundle-node-red.mjs [--outdir <dir>]
import { build } from 'esbuild';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'node-red');
const flag = process.argv.indexOf('--outdir');
const outdir = flag > 0 ? process.argv[flag + 1] : join(root, 'dist/node-red');

export const NODE_NAMES = [
	'render-service-config',
	'render-models',
	'render-generate',
	'render-job',
];

// tsc (scripts/build.mjs) also compiles node-red/**/*.ts into dist/node-red; only the bundles
// belong there, so drop its per-file output first.
function removeCompiled(dir) {
	if (!existsSync(dir)) return;
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) {
			removeCompiled(path);
			if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
		} else if (/\.(js|d\.ts|js\.map)$/.test(name)) rmSync(path);
	}
}

function copyStatic(dir) {
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) copyStatic(path);
		else if (/\.(html|json|svg|png)$/.test(name))
			cpSync(path, join(outdir, relative(source, path)));
	}
}

removeCompiled(outdir);
await build({
	entryPoints: NODE_NAMES.map((name) => join(source, `${name}.ts`)),
	outdir,
	bundle: true,
	platform: 'node',
	format: 'cjs',
	target: 'node20',
	legalComments: 'none',
	logLevel: 'warning',
});
copyStatic(source);
