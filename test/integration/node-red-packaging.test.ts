/**
 * What Node-RED finds in the published package: Node-RED lists every *.json under the
 * module's `examples/` folder (the path is fixed in @node-red/registry), so the package ships
 * only examples/node-red, and each example flow must import cleanly.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(60_000);

const root = join(__dirname, '../..');
const exampleDir = join(root, 'examples/node-red');
const NODE_TYPES = ['render-service-config', 'render-models', 'render-generate', 'render-job'];
type FlowNode = { id: string; type: string; wires?: string[][]; config?: string } & Record<
	string,
	unknown
>;

function packedFiles(): string[] {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map(
		(f) => f.path,
	);
}

/** The editor's `defaults` keys of a node type, read from its HTML. */
function editorDefaults(type: string): string[] {
	const html = readFileSync(join(root, 'node-red', `${type}.html`), 'utf8');
	const block = /defaults: \{([\s\S]*?)\n\t*\},\n/.exec(html)?.[1] ?? '';
	return [...block.matchAll(/^\s*(\w+): \{/gm)].map((m) => m[1]!);
}

const examples = readdirSync(exampleDir).filter((f) => f.endsWith('.json'));

it('ships only the Node-RED example flows under examples/', () => {
	const shipped = packedFiles().filter((p) => p.startsWith('examples/'));
	expect(shipped.sort()).toEqual(examples.map((f) => `examples/node-red/${f}`).sort());
});

it('shows the flows under Import > Examples as Node-RED lists them', async () => {
	const moduleDir = mkdtempSync(join(tmpdir(), 'nr-examples-'));
	try {
		cpSync(exampleDir, join(moduleDir, 'examples/node-red'), { recursive: true });
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const library = require(join(root, 'node_modules/@node-red/registry/lib/library.js')) as {
			init(): void;
			addExamplesDir(module: string, path: string): Promise<void>;
			getExampleFlows(): Record<string, { d?: Record<string, { f: string[] }> }>;
		};
		library.init();
		await library.addExamplesDir('@render-service/n8n-nodes-render', join(moduleDir, 'examples'));
		const listed = library.getExampleFlows()['@render-service/n8n-nodes-render'];
		expect(listed?.d?.['node-red']?.f.sort()).toEqual(
			examples.map((f) => f.replace(/\.json$/, '')).sort(),
		);
	} finally {
		rmSync(moduleDir, { recursive: true, force: true });
	}
});

describe.each(examples)('%s', (file) => {
	const flow = JSON.parse(readFileSync(join(exampleDir, file), 'utf8')) as FlowNode[];
	const ids = new Set(flow.map((n) => n.id));

	it('wires and config references point at nodes of the flow', () => {
		for (const node of flow) {
			for (const target of (node.wires ?? []).flat()) expect(ids.has(target)).toBe(true);
			if (node.type.startsWith('render-') && node.type !== 'render-service-config') {
				expect(flow.find((n) => n.id === node.config)?.type).toBe('render-service-config');
			}
		}
	});

	it('sets every editor property of our nodes and carries no credentials', () => {
		const ours = flow.filter((n) => NODE_TYPES.includes(n.type));
		expect(ours.length).toBeGreaterThan(1);
		for (const node of ours) {
			const defaults = editorDefaults(node.type);
			expect(defaults).toContain('name');
			expect(Object.keys(node)).toEqual(expect.arrayContaining(defaults));
		}
		expect(JSON.stringify(flow)).not.toMatch(/credentials|apiKey|rs_demo_0123456789abcdef"/);
	});
});

it('uses every node type across the examples, with an inject -> generate -> file flow', () => {
	const all = examples.flatMap(
		(f) => JSON.parse(readFileSync(join(exampleDir, f), 'utf8')) as FlowNode[],
	);
	expect([...new Set(all.map((n) => n.type))]).toEqual(expect.arrayContaining(NODE_TYPES));
	const generate = all.find((n) => n.type === 'render-generate' && n.mode === 'wait')!;
	const file = all.find((n) => n.type === 'file' && generate.wires?.[0]?.includes(n.id));
	expect(file).toBeDefined();
	expect(all.some((n) => n.type === 'inject' && n.wires?.[0]?.includes(generate.id))).toBe(true);
});

it('declares the nodes, Node-RED 4 and 5, and no runtime dependencies (node-red-dev checks)', () => {
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
		keywords: string[];
		dependencies?: Record<string, string>;
		engines: { node: string };
		'node-red': { version: string; nodes: Record<string, string> };
	};
	expect(pkg.keywords).toContain('node-red');
	expect(pkg.engines.node).toBe('>=20.0.0');
	expect(pkg['node-red'].version).toBe('>=4.0.0');
	expect(pkg['node-red'].nodes).toEqual(
		Object.fromEntries(NODE_TYPES.map((type) => [type, `dist/node-red/${type}.js`])),
	);
	expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
});
