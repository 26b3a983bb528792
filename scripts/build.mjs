// Build: compile TypeScript to dist/, then copy the static files each engine loads from disk
// (n8n: icons and codex JSON beside the nodes; Node-RED: editor HTML, locales, icons).
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
	cwd: root,
	stdio: 'inherit',
});

// The emulator CLI is package.json's `bin`: npx runs it directly, so it must be executable.
const emulatorCli = join(dist, 'emulator/cli.js');
if (existsSync(emulatorCli)) chmodSync(emulatorCli, 0o755);

const staticPattern = /\.(svg|png|html|json)$/;
function copyStatic(dir) {
	const from = join(root, dir);
	if (!existsSync(from)) return;
	for (const name of readdirSync(from)) {
		const path = join(from, name);
		if (statSync(path).isDirectory()) copyStatic(join(dir, name));
		else if (staticPattern.test(name)) {
			const target = join(dist, relative(root, path));
			mkdirSync(dirname(target), { recursive: true });
			cpSync(path, target);
		}
	}
}
for (const dir of ['nodes', 'credentials', 'icons', 'node-red', 'emulator']) copyStatic(dir);

const bundle = join(root, 'scripts/bundle-node-red.mjs');
if (existsSync(bundle)) execFileSync(process.execPath, [bundle], { cwd: root, stdio: 'inherit' });
