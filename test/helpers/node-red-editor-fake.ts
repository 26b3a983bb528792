/**
 * Just enough of jQuery and the editor's RED object to run our nodes' editor scripts in jest:
 * elements by id or class, selects with options (a value without an option selects nothing,
 * as in a browser), data, change events, and $.ajax answered by the test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Option {
	value: string;
	text: string;
}

export class FakeElement {
	value: string | null = '';
	options: Option[] = [];
	text_ = '';
	visible = true;
	disabled = false;
	readonly attrs: Record<string, string> = {};
	readonly classes = new Set<string>();
	readonly store: Record<string, unknown> = {};
	readonly handlers: Record<string, Handler[]> = {};

	constructor(
		readonly tag: string,
		readonly id = '',
		classes: string[] = [],
	) {
		classes.forEach((c) => this.classes.add(c));
	}

	get isSelect(): boolean {
		return this.tag === 'select';
	}
}

type Handler = (this: FakeElement, event: { preventDefault(): void }) => void;

/** A jQuery-like wrapper over a list of fake elements. */
class Wrapped {
	constructor(readonly els: FakeElement[]) {}
	private get el(): FakeElement {
		return this.els[0]!;
	}
	val(): string | null;
	val(value: unknown): this;
	val(value?: unknown): string | null | this {
		if (arguments.length === 0) return this.el.value;
		for (const el of this.els) {
			const v = String(value ?? '');
			el.value = el.isSelect ? (el.options.some((o) => o.value === v) ? v : null) : v;
		}
		return this;
	}
	text(value?: string): unknown {
		if (value === undefined) return this.el.text_;
		this.els.forEach((el) => (el.text_ = value));
		return this;
	}
	empty(): this {
		this.els.forEach((el) => {
			el.options = [];
			el.value = null;
		});
		return this;
	}
	append(child: Wrapped): this {
		for (const el of this.els) {
			const option = child.el;
			el.options.push({ value: String(option.value ?? ''), text: option.text_ });
			if (el.options.length === 1) el.value = el.options[0]!.value; // a browser selects the first
		}
		return this;
	}
	data(key: string, value?: unknown): unknown {
		const store = this.el.store;
		if (arguments.length === 1) return store[key];
		this.els.forEach((el) => (el.store[key] = value));
		return this;
	}
	on(event: string, handler: Handler): this {
		for (const el of this.els) {
			(el.handlers[event] ??= []).push(handler);
		}
		return this;
	}
	trigger(event: string): this {
		for (const el of this.els) {
			for (const h of el.handlers[event] ?? []) h.call(el, { preventDefault() {} });
		}
		return this;
	}
	prop(name: string, value: boolean): this {
		if (name === 'disabled') this.els.forEach((el) => (el.disabled = value));
		return this;
	}
	attr(name: string, value: string): this {
		this.els.forEach((el) => (el.attrs[name] = value));
		return this;
	}
	toggle(show: boolean): this {
		this.els.forEach((el) => (el.visible = show));
		return this;
	}
	toggleClass(name: string, on: boolean): this {
		this.els.forEach((el) => (on ? el.classes.add(name) : el.classes.delete(name)));
		return this;
	}
	find(): Wrapped {
		return new Wrapped([]);
	}
	get length(): number {
		return this.els.length;
	}
}

export interface AjaxCall {
	options: { url: string; type: string; data: string };
	resolve(data: unknown): void;
	reject(xhr: { status: number; statusText?: string; responseJSON?: unknown }): void;
}

export interface FakeEditor {
	$: (selector: unknown) => Wrapped;
	el(id: string): FakeElement;
	options(id: string): string[];
	ajax: AjaxCall[];
	definitions: Record<string, Record<string, unknown>>;
	configNodes: Record<string, Record<string, unknown>>;
}

/** Builds the form from a node's template ids/classes and runs its editor script. */
export function loadEditor(type: string, strings: Record<string, unknown>): FakeEditor {
	const html = readFileSync(join(__dirname, '../../node-red', `${type}.html`), 'utf8');
	const template = /<script type="text\/html" data-template-name="[^"]+">([\s\S]*?)<\/script>/.exec(
		html,
	)![1]!;
	const byId: Record<string, FakeElement> = {};
	for (const m of template.matchAll(/<(\w+)([^>]*?)id="([^"]+)"/g)) {
		const tag = m[1]!;
		const classes = /class="([^"]+)"/.exec(m[0])?.[1]?.split(' ') ?? [];
		byId[m[3]!] = new FakeElement(tag, m[3]!, classes);
	}
	for (const m of template.matchAll(/<select id="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
		const select = byId[m[1]!]!;
		select.options = [...m[2]!.matchAll(/<option value="([^"]*)"/g)].map((o) => ({
			value: o[1]!,
			text: o[1]!,
		}));
		select.value = select.options[0]?.value ?? null;
	}
	// Rows carry the show/hide classes; model them as elements too.
	const rows: FakeElement[] = [...template.matchAll(/<div class="form-row ([^"]+)">/g)].map(
		(m) => new FakeElement('div', '', m[1]!.split(' ')),
	);
	const ajax: AjaxCall[] = [];
	const $ = ((selector: unknown): Wrapped => {
		if (typeof selector === 'string' && selector.startsWith('#'))
			return new Wrapped([byId[selector.slice(1)]!].filter(Boolean));
		if (typeof selector === 'string' && selector.startsWith('.')) {
			return new Wrapped(rows.filter((r) => r.classes.has(selector.slice(1))));
		}
		if (selector === '<option>') return new Wrapped([new FakeElement('option')]);
		if (selector instanceof FakeElement) return new Wrapped([selector]);
		throw new Error(`fake $ does not support ${String(selector)}`);
	}) as FakeEditor['$'] & { ajax: (o: AjaxCall['options']) => unknown };
	($ as unknown as { ajax: unknown }).ajax = (options: AjaxCall['options']) => {
		let done: (d: unknown) => void = () => {};
		let fail: (x: unknown) => void = () => {};
		const call: AjaxCall = { options, resolve: (d) => done(d), reject: (x) => fail(x) };
		ajax.push(call);
		const chain = {
			done(fn: (d: unknown) => void) {
				done = fn;
				return chain;
			},
			fail(fn: (x: unknown) => void) {
				fail = fn;
				return chain;
			},
		};
		return chain;
	};
	const definitions: FakeEditor['definitions'] = {};
	const configNodes: FakeEditor['configNodes'] = {};
	const RED = {
		nodes: {
			registerType: (name: string, def: Record<string, unknown>) => (definitions[name] = def),
			node: (id: string) => configNodes[id] ?? null,
		},
		validators: { number: () => () => true, regex: () => () => true },
		settings: {},
	};
	const script = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)![1]!;
	new Function('RED', '$', script)(RED, $);
	const def = definitions[type]!;
	def._ = (key: string, params: Record<string, unknown> = {}) => {
		let node: unknown = strings;
		for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
		return typeof node === 'string'
			? node.replace(/__(\w+)__/g, (_w, n: string) => String(params[n]))
			: key;
	};
	return {
		$,
		el: (id) => byId[id]!,
		options: (id) => byId[id]!.options.map((o) => o.value),
		ajax,
		definitions,
		configNodes,
	};
}
