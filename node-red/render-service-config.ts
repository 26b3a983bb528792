/**
 * render-service-config: the API key (a credential) and the two base addresses, shared by every
 * Render Service node that selects it. Also registers the editor's catalogue endpoint.
 */
import { registerAdminRoutes } from './lib/admin';
import { CONFIG_TYPE } from './lib/config-node';
import type { RenderConfigNode } from './lib/config-node';
import { megabytes, normaliseUrl } from './lib/connection';
import type { NodeAPI, NodeDef, RedNode } from './lib/red';

export = function register(RED: NodeAPI): void {
	RED.nodes.registerType(
		CONFIG_TYPE,
		function RenderServiceConfig(this: RedNode, def: NodeDef) {
			RED.nodes.createNode(this, def);
			const baseUrl = normaliseUrl(def.baseUrl);
			const asyncUrl = normaliseUrl(def.asyncUrl) || baseUrl;
			const allowedCdnHosts = typeof def.allowedCdnHosts === 'string' ? def.allowedCdnHosts : '';
			const maxDownloadBytes = megabytes(def.maxDownloadMb);
			const node = this as RenderConfigNode;
			node.connection = () => ({
				baseUrl,
				asyncUrl,
				apiKey: node.credentials?.apiKey?.trim() ?? '',
				allowedCdnHosts,
				maxDownloadBytes,
			});
		},
		{ credentials: { apiKey: { type: 'password' } } },
	);
	registerAdminRoutes(RED);
};
