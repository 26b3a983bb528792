import { createHash } from 'node:crypto';

import type { Logger } from 'n8n-workflow';

import type { RenderClient } from '../../../core/api';
import { createRenderClient } from '../../../core/client';
import { n8nSleep } from './sleep';
import { CREDENTIAL_TYPE, createN8nTransport, type RequestContext } from './transport';

/** The credential's fields as the nodes read them. */
export interface RenderCredentials {
	apiKey: string;
	baseUrl: string;
	asyncUrl: string;
}

export interface ClientContext extends RequestContext {
	getCredentials<T extends object>(type: string): Promise<T>;
	logger?: Logger;
}

export interface ConnectedClient {
	client: RenderClient;
	credentials: RenderCredentials;
	/** Strings to keep out of anything a user sees. */
	secrets: string[];
}

/** The credential's download guards (see the credential's descriptions). */
interface DownloadLimits {
	allowedCdnHosts: string;
	maxDownloadMb: number;
}

/** Megabytes from a credential field; undefined (the core's default) when unset or 0. */
function megabytes(value: unknown): number | undefined {
	const mb = Number(value);
	return Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : undefined;
}

export function trimUrl(url: string): string {
	return url.trim().replace(/\/+$/, '');
}

/** Builds a core client on the node's credential. The key itself stays inside n8n's helpers. */
export async function connect(context: ClientContext): Promise<ConnectedClient> {
	const raw =
		await context.getCredentials<Partial<RenderCredentials & DownloadLimits>>(CREDENTIAL_TYPE);
	const credentials: RenderCredentials = {
		apiKey: String(raw.apiKey ?? ''),
		baseUrl: trimUrl(String(raw.baseUrl ?? '')),
		asyncUrl: trimUrl(String(raw.asyncUrl ?? '')),
	};
	const secrets = credentials.apiKey ? [credentials.apiKey] : [];
	const logger = context.logger;
	const client = createRenderClient({
		baseUrl: credentials.baseUrl,
		asyncUrl: credentials.asyncUrl,
		transport: createN8nTransport(context),
		sleep: n8nSleep,
		secrets,
		allowedCdnHosts: [String(raw.allowedCdnHosts ?? '')],
		maxDownloadBytes: megabytes(raw.maxDownloadMb),
		// The catalogue cache is shared per key without ever holding the key.
		cacheIdentity: createHash('sha256').update(credentials.apiKey).digest('hex').slice(0, 16),
		logger: logger && {
			debug: (message: string) => logger.debug(message),
			warn: (message: string) => logger.warn(message),
		},
	});
	return { client, credentials, secrets };
}
