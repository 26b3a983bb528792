/**
 * Turns the core's typed errors into the errors n8n shows: `NodeApiError` for what the
 * service or the network answered, `NodeOperationError` for what the user can fix in the
 * node. The core's `hint` becomes the description under the message.
 */
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { RenderServiceError, scrub } from '../../../core/errors';

const API_CODES = new Set([
	'unauthorized',
	'not_found',
	'conflict',
	'rate_limited',
	'network',
	'cdn',
	'service',
	'bad_response',
]);

export type NodeError = NodeApiError | NodeOperationError;

export function isNodeError(error: unknown): error is NodeError {
	return error instanceof NodeApiError || error instanceof NodeOperationError;
}

export function jobIdOf(error: unknown): string | undefined {
	if (error instanceof RenderServiceError) return error.jobId;
	const context = (error as { context?: { jobId?: unknown } } | undefined)?.context;
	return typeof context?.jobId === 'string' ? context.jobId : undefined;
}

export function toNodeError(
	node: INode,
	error: unknown,
	options: { itemIndex?: number; secrets?: readonly string[] } = {},
): NodeError {
	if (isNodeError(error)) return error;
	const secrets = options.secrets ?? [];
	const { itemIndex } = options;
	if (error instanceof RenderServiceError) {
		const message = scrub(error.message, secrets);
		const description = error.hint ? scrub(error.hint, secrets) : undefined;
		let result: NodeError;
		if (API_CODES.has(error.code)) {
			const response: JsonObject = { message, code: error.code };
			if (error.jobId) response.jobId = error.jobId;
			result = new NodeApiError(node, response, {
				message,
				description,
				itemIndex,
				httpCode: error.status !== undefined ? String(error.status) : undefined,
			});
			// NodeApiError may swap in a generic text for well-known statuses; ours is clearer.
			result.message = message;
		} else {
			result = new NodeOperationError(node, message, { itemIndex, description });
		}
		if (error.jobId) result.context.jobId = error.jobId;
		return result;
	}
	const text = scrub(error instanceof Error ? error.message : String(error), secrets);
	return new NodeOperationError(node, text, { itemIndex });
}
