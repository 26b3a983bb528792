/**
 * The request context of the trigger's watcher, which keeps making requests long after
 * `trigger()` returned. Real n8n 2.x (expression engine `vm`, the default) resolves a
 * credential's `authenticate` expression in an isolate the trigger holds only during
 * activation, so a later `httpRequestWithAuthentication` fails with "No bridge acquired for
 * this context". The watcher therefore sends the bearer header read at activation itself,
 * through n8n's plain `httpRequest` (same proxy and SSRF handling). The core only asks for
 * authentication on requests to the credential's Base URL and Async URL, never the CDN.
 */
import type { IHttpRequestOptions, ITriggerFunctions } from 'n8n-workflow';

import type { ClientContext } from '../shared/client';
import { CREDENTIAL_TYPE } from '../shared/transport';

export async function longLivedContext(context: ITriggerFunctions): Promise<ClientContext> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const authorization = `Bearer ${String(credentials.apiKey ?? '')}`;
	return {
		logger: context.logger,
		getCredentials: async <T extends object>() => credentials as unknown as T,
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) =>
				await context.helpers.httpRequest(options),
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				await context.helpers.httpRequest({
					...options,
					headers: { ...(options.headers ?? {}), Authorization: authorization },
				}),
		},
	};
}
