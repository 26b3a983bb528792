/**
 * Every string the Node-RED editor and runtime look up exists in locales/en-US, and every node
 * has its editor template and help.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(__dirname, '../../node-red');
const NAMES = ['render-service-config', 'render-models', 'render-generate', 'render-job'];
const WORKING = NAMES.filter((n) => n !== 'render-service-config');

function catalogue(name: string): Record<string, unknown> {
	return JSON.parse(readFileSync(join(dir, 'locales/en-US', `${name}.json`), 'utf8')) as Record<
		string,
		unknown
	>;
}

function has(tree: Record<string, unknown>, key: string): boolean {
	let node: unknown = tree;
	for (const part of key.split('.')) {
		if (typeof node !== 'object' || node === null || !(part in node)) return false;
		node = (node as Record<string, unknown>)[part];
	}
	return typeof node === 'string';
}

const merged = Object.assign({}, ...NAMES.map(catalogue)) as Record<string, unknown>;

describe.each(NAMES)('%s', (name) => {
	const editor = readFileSync(join(dir, `${name}.html`), 'utf8');
	const help = readFileSync(join(dir, 'locales/en-US', `${name}.html`), 'utf8');

	it('registers its type in the editor, with a template and help of the same name', () => {
		expect(editor).toContain(`registerType('${name}'`);
		expect(editor).toContain(`data-template-name="${name}"`);
		expect(help).toContain(`data-help-name="${name}"`);
	});

	it('resolves every data-i18n and this._ / node._ key in its own catalogue', () => {
		const own = catalogue(name);
		const keys = [
			...[...editor.matchAll(/data-i18n="(?:\[[a-z]+\])?([^"]+)"/g)].map((m) => m[1]!),
			...[...editor.matchAll(/(?:this|node)\._\('([^']+)'/g)].map((m) => m[1]!),
		];
		expect(keys.length).toBeGreaterThan(0);
		expect(keys.filter((k) => !has(own, k))).toEqual([]);
	});

	it('has editor scripts that parse', () => {
		const scripts = [
			...editor.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g),
		].map((m) => m[1]!);
		expect(scripts).toHaveLength(1);
		// Parsing only: `new Function` compiles the code without running it.
		for (const code of scripts) expect(() => new Function('RED', '$', code)).not.toThrow();
	});

	it('documents inputs and outputs as message properties', () => {
		if (name === 'render-service-config') return expect(help).toContain('<h3>Details</h3>');
		for (const heading of ['Inputs', 'Outputs', 'Details'])
			expect(help).toContain(`<h3>${heading}</h3>`);
		expect(help).toContain('class="message-properties"');
	});
});

describe('runtime strings', () => {
	const source = (file: string): string => readFileSync(join(dir, file), 'utf8');

	it('resolves every literal key used in the runtime', () => {
		const files = [
			'render-models.ts',
			'render-generate.ts',
			'render-job.ts',
			'lib/request.ts',
			'lib/client-for-node.ts',
			'lib/admin.ts',
		];
		const missing: string[] = [];
		let checked = 0;
		for (const file of files) {
			const text = source(file);
			const type = /const TYPE = '([^']+)'/.exec(text)?.[1];
			const literal = [...text.matchAll(/'(render-[a-z-]+(?:\.[A-Za-z]+)+)'/g)]
				.map((m) => m[1]!)
				.filter((k) => k !== 'render-service.read'); // the admin permission, not a string
			const templated = type
				? [...text.matchAll(/`\$\{TYPE\}\.([A-Za-z.]+)`/g)].map((m) => `${type}.${m[1]}`)
				: [];
			const admin =
				[...text.matchAll(/`render-service-config\.admin\.\$\{[^}]+\}`/g)].length > 0
					? ['badBaseUrl', 'noKey', 'notDeployed', 'keyForOtherUrl'].map(
							(k) => `render-service-config.admin.${k}`,
						)
					: [];
			const keys = [...literal, ...templated, ...admin];
			checked += keys.length;
			missing.push(...keys.filter((k) => !has(merged, k)));
		}
		expect(checked).toBeGreaterThan(15);
		expect(missing).toEqual([]);
	});

	it('has every status text and error reason in each working node', () => {
		const status = source('lib/status.ts');
		const statusNames = [
			...[...status.matchAll(/this\.text\('([A-Za-z]+)'/g)].map((m) => m[1]!),
			...(/label: ('[a-z]+'(?: \| '[a-z]+')*)/.exec(status)?.[1] ?? '')
				.split(' | ')
				.map((s) => s.replace(/'/g, '')),
		];
		const reasons = [...source('lib/errors.ts').matchAll(/^\t[a-z_]+: '([A-Za-z]+)',$/gm)].map(
			(m) => m[1]!,
		);
		expect(statusNames.length).toBeGreaterThan(8);
		expect(reasons.length).toBeGreaterThan(10);
		for (const name of WORKING) {
			const own = catalogue(name);
			expect(statusNames.filter((s) => !has(own, `${name}.status.${s}`))).toEqual([]);
			expect(reasons.filter((r) => !has(own, `${name}.reasons.${r}`))).toEqual([]);
			for (const extra of ['submitted', 'timedOut']) {
				expect(has(own, `${name}.status.${extra}`)).toBe(true);
			}
			if (name === 'render-models') continue;
			for (const key of ['cancelledAfterTimeout', 'notCancelledAfterTimeout']) {
				expect(has(own, `${name}.errors.${key}`)).toBe(true);
			}
		}
	});
});
