/**
 * What the config node offers the nodes that use it. Only settings cross between node files:
 * each file bundles its own copy of the core and builds its own client from them.
 */
import type { ConnectionSettings } from './connection';
import type { RedNode } from './red';

export const CONFIG_TYPE = 'render-service-config';

export interface RenderConfigNode extends RedNode {
	/** Current settings; `apiKey` is '' when no key is stored. */
	connection(): ConnectionSettings;
}

export function asConfigNode(node: RedNode | null | undefined): RenderConfigNode | undefined {
	if (!node || node.type !== CONFIG_TYPE) return undefined;
	return typeof (node as Partial<RenderConfigNode>).connection === 'function'
		? (node as RenderConfigNode)
		: undefined;
}
