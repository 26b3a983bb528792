/**
 * What n8n needs to load and show this package, checked without n8n: the `n8n` block of
 * package.json, codex files, icons, the absence of axios/eventsource in the n8n surface, and
 * example workflows that only use parameters our nodes declare.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import type { INodeProperties, INodeType } from 'n8n-workflow';

import { RenderServiceApi } from '../../credentials/RenderServiceApi.credentials';
import { RenderServiceGenerateMedia } from '../../nodes/RenderService/GenerateMedia/RenderServiceGenerateMedia.node';
import { RenderServiceListModels } from '../../nodes/RenderService/ListModels/RenderServiceListModels.node';
import { RenderServiceTrigger } from '../../nodes/RenderService/Trigger/RenderServiceTrigger.node';

const root = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const nodes: Record<string, INodeType> = {
	renderServiceListModels: new RenderServiceListModels(),
	renderServiceGenerateMedia: new RenderServiceGenerateMedia(),
	renderServiceTrigger: new RenderServiceTrigger(),
};

function sourceOf(distPath: string): string {
	return join(root, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
}

function iconFiles(icon: unknown, base: string): string[] {
	const values = typeof icon === 'string' ? [icon] : Object.values(icon as Record<string, string>);
	return values.map((value) => resolve(base, value.replace(/^file:/, '')));
}

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

describe('n8n package surface', () => {
	it('lists every node and credential in package.json, with source files', () => {
		expect(pkg.n8n.nodes).toHaveLength(3);
		expect(pkg.n8n.credentials).toEqual(['dist/credentials/RenderServiceApi.credentials.js']);
		for (const path of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
			expect(existsSync(sourceOf(path))).toBe(true);
		}
	});

	it('has a codex file named after the package beside each node', () => {
		for (const path of pkg.n8n.nodes as string[]) {
			const codexPath = sourceOf(path).replace(/\.ts$/, '.json');
			const codex = JSON.parse(readFileSync(codexPath, 'utf8'));
			const nodeName = Object.keys(nodes).find((name) =>
				codexPath.includes(name.replace('renderService', '')),
			);
			expect(codex.node).toBe(`${pkg.name}.${nodeName}`);
		}
	});

	it('points at light and dark icons that exist', () => {
		for (const path of pkg.n8n.nodes as string[]) {
			const source = sourceOf(path);
			const name = Object.keys(nodes).find((n) => source.includes(n.replace('renderService', '')))!;
			const files = iconFiles(nodes[name]!.description.icon, dirname(source));
			expect(files).toHaveLength(2);
			files.forEach((file) => expect(existsSync(file)).toBe(true));
		}
		const credentialFiles = iconFiles(new RenderServiceApi().icon, join(root, 'credentials'));
		credentialFiles.forEach((file) => expect(existsSync(file)).toBe(true));
	});

	it('keeps axios, eventsource and the core barrel (which loads axios) out of the n8n code', () => {
		const files = [
			...filesUnder(join(root, 'nodes')),
			...filesUnder(join(root, 'credentials')),
		].filter((file) => file.endsWith('.ts'));
		for (const file of files) {
			const text = readFileSync(file, 'utf8');
			expect(text).not.toMatch(/from ['"](axios|eventsource)['"]/);
			expect(text).not.toMatch(/from ['"](\.\.\/)+core(\/index)?['"]/);
			expect(text).not.toMatch(/core\/transports/);
		}
	});

	it('makes Generate Media and List Models usable as AI tools, not the trigger', () => {
		expect(nodes.renderServiceGenerateMedia!.description.usableAsTool).toBe(true);
		expect(nodes.renderServiceListModels!.description.usableAsTool).toBe(true);
		expect(nodes.renderServiceTrigger!.description.usableAsTool).toBeUndefined();
	});
});

describe('example workflows', () => {
	const dir = join(root, 'examples', 'n8n');
	const workflows = readdirSync(dir)
		.filter((name) => /^\d.*\.json$/.test(name))
		.map((name) => ({ name, workflow: JSON.parse(readFileSync(join(dir, name), 'utf8')) }));

	function declared(properties: INodeProperties[]): Set<string> {
		return new Set(properties.map((p) => p.name));
	}

	it('covers list-and-generate, a batch of 20, submit-only and the trigger', () => {
		expect(workflows.map((w) => w.name)).toEqual([
			'01-list-models-and-generate.json',
			'02-batch-20-prompts.json',
			'03a-submit-only.json',
			'03b-completion-trigger.json',
		]);
	});

	it.each(['01', '02', '03a', '03b'])(
		'%s is importable: ids, names, our parameters only',
		(prefix) => {
			const { workflow } = workflows.find((w) => w.name.startsWith(`${prefix}-`))!;
			expect(typeof workflow.id).toBe('string');
			expect(typeof workflow.name).toBe('string');
			const names = new Set<string>();
			for (const node of workflow.nodes) {
				expect(node.id).toMatch(/^[0-9a-f-]{36}$/);
				names.add(node.name);
				if (!node.type.startsWith(`${pkg.name}.`)) continue;
				const type = nodes[node.type.slice(pkg.name.length + 1)];
				expect(type).toBeDefined();
				const known = declared(type!.description.properties);
				for (const parameter of Object.keys(node.parameters)) expect(known).toContain(parameter);
				expect(node.credentials.renderServiceApi).toEqual({
					id: 'rsEmulatorCred01',
					name: 'Render Service Emulator',
				});
			}
			for (const [from, outputs] of Object.entries(workflow.connections)) {
				expect(names).toContain(from);
				for (const target of (outputs as { main: { node: string }[][] }).main.flat()) {
					expect(names).toContain(target.node);
				}
			}
		},
	);

	it('ships a credential file for the local emulator', () => {
		const [credential] = JSON.parse(readFileSync(join(dir, 'credentials.emulator.json'), 'utf8'));
		expect(credential).toMatchObject({
			id: 'rsEmulatorCred01',
			name: 'Render Service Emulator',
			type: new RenderServiceApi().name,
		});
		expect(Object.keys(credential.data).sort()).toEqual(['apiKey', 'asyncUrl', 'baseUrl']);
	});
});
