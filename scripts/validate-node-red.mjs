// `node-red-dev validate` on the package as it would be published (npm pack), failing when
// any check of its scorecard fails: node-red-dev itself exits 0 either way.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'render-node-red-validate-'));
try {
	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: root,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);

	const scorecard = join(work, 'scorecard.json');
	const cli = join(root, 'node_modules/node-red-dev/bin/run');
	const preload = join(root, 'scripts/node-red-dev-offline.cjs');
	execFileSync(
		process.execPath,
		['-r', preload, cli, 'validate', '-p', join(work, 'package'), '-o', scorecard],
		{
			cwd: root,
			stdio: 'inherit',
		},
	);

	const results = JSON.parse(readFileSync(scorecard, 'utf8'));
	const failed = Object.entries(results).filter(([, check]) => check && check.test === false);
	if (failed.length > 0) {
		console.error(
			`node-red-dev validate: ${failed.length} check(s) failed: ${failed.map(([id]) => id).join(', ')}`,
		);
		process.exit(1);
	}
	const passed = Object.values(results).filter((check) => check && check.test === true).length;
	console.log(`node-red-dev validate: ${passed} checks passed`);
} finally {
	rmSync(work, { recursive: true, force: true });
}
