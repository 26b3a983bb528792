/**
 * Gives a working node the client of its config node. Clients are cached per node and rebuilt
 * when the config node's settings change (redeploy of the config node alone).
 */
import type { RenderClient } from '../../core/api';
import { ValidationError } from '../../core/errors';
import { asConfigNode } from './config-node';
import { createClient, isHttpUrl } from './connection';
import type { Translate } from './i18n';
import type { NodeAPI } from './red';

export interface BoundClient {
	client: RenderClient;
	/** Strings to scrub from anything shown (the key). */
	secrets: string[];
}

export function clientSource(RED: NodeAPI, configId: unknown, t: Translate): () => BoundClient {
	let cached: { signature: string; bound: BoundClient } | undefined;
	return () => {
		const config =
			typeof configId === 'string' ? asConfigNode(RED.nodes.getNode(configId)) : undefined;
		if (!config)
			throw new ValidationError(t('render-service-config.errors.noConfig'), { field: 'config' });
		const settings = config.connection();
		if (!settings.apiKey)
			throw new ValidationError(t('render-service-config.errors.noKey'), { field: 'apiKey' });
		if (!isHttpUrl(settings.baseUrl) || !isHttpUrl(settings.asyncUrl)) {
			throw new ValidationError(t('render-service-config.errors.badUrl'), { field: 'baseUrl' });
		}
		const signature = JSON.stringify(settings);
		if (cached?.signature !== signature) {
			cached = { signature, bound: { client: createClient(settings), secrets: [settings.apiKey] } };
		}
		return cached.bound;
	};
}
