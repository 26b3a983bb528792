/**
 * Runtime strings. Node-RED's `RED._` resolves keys against our locales; when a host has not
 * registered the catalogue (node-red-node-test-helper stubs `RED._` to return the key), we
 * fall back to the bundled English catalogue so status text and errors stay readable.
 */
import type { NodeAPI } from './red';
import config from '../locales/en-US/render-service-config.json';
import models from '../locales/en-US/render-models.json';
import generate from '../locales/en-US/render-generate.json';
import job from '../locales/en-US/render-job.json';

const english: Record<string, unknown> = { ...config, ...models, ...generate, ...job };

function lookup(key: string): string | undefined {
	let node: unknown = english;
	for (const part of key.split('.')) {
		if (typeof node !== 'object' || node === null) return undefined;
		node = (node as Record<string, unknown>)[part];
	}
	return typeof node === 'string' ? node : undefined;
}

function interpolate(text: string, params: Record<string, unknown> = {}): string {
	return text.replace(/__(\w+)__/g, (whole, name: string) =>
		name in params ? String(params[name]) : whole,
	);
}

export type Translate = (key: string, params?: Record<string, unknown>) => string;

export function translator(RED: Pick<NodeAPI, '_'>): Translate {
	return (key, params) => {
		const fromRed = RED._(key, params);
		if (typeof fromRed === 'string' && fromRed !== key && fromRed !== '') return fromRed;
		const text = lookup(key);
		return text === undefined ? key : interpolate(text, params);
	};
}
