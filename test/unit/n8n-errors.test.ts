import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import {
	JobFailedError,
	RateLimitedError,
	TimeoutError,
	UnauthorizedError,
	ValidationError,
} from '../../core/errors';
import { jobIdOf, toNodeError } from '../../nodes/RenderService/shared/errors';

const node: INode = {
	id: 'n1',
	name: 'Generate Media',
	type: 'x.renderServiceGenerateMedia',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const KEY = 'rs_secret_key_0123456789';

describe('n8n error mapping', () => {
	it('turns what the user can fix into NodeOperationError with the hint and item index', () => {
		const error = toNodeError(
			node,
			new ValidationError('Guidance 50 is outside 1 to 10 for flux/dev', {
				field: 'guidance',
				hint: 'Set Guidance between 1 and 10, or leave it unset.',
			}),
			{ itemIndex: 3 },
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Guidance 50 is outside 1 to 10 for flux/dev');
		expect(error.description).toBe('Set Guidance between 1 and 10, or leave it unset.');
		expect(error.context.itemIndex).toBe(3);
	});

	it('turns service answers into NodeApiError, keeping our message over n8n’s generic one', () => {
		const error = toNodeError(
			node,
			new UnauthorizedError('The Render Service refused the API key', {
				status: 401,
				hint: 'Check the API key in the Render Service credential.',
			}),
			{ itemIndex: 0 },
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('The Render Service refused the API key');
		expect(error.description).toBe('Check the API key in the Render Service credential.');
		expect((error as NodeApiError).httpCode).toBe('401');
		expect(toNodeError(node, new RateLimitedError('Too many requests'))).toBeInstanceOf(
			NodeApiError,
		);
	});

	it('keeps the job ID of failed and timed-out jobs', () => {
		const failed = toNodeError(node, new JobFailedError('Job j-1 failed', { jobId: 'j-1' }));
		expect(failed).toBeInstanceOf(NodeOperationError);
		expect(jobIdOf(failed)).toBe('j-1');
		expect(jobIdOf(new TimeoutError('Job j-2 is still running', { jobId: 'j-2' }))).toBe('j-2');
	});

	it('removes the API key from any text it passes on', () => {
		const error = toNodeError(node, new Error(`upstream echoed Bearer ${KEY}`), { secrets: [KEY] });
		expect(
			JSON.stringify({ message: error.message, description: error.description }),
		).not.toContain(KEY);
		const api = toNodeError(
			node,
			new UnauthorizedError(`bad key ${KEY}`, { hint: `key ${KEY} refused`, status: 401 }),
			{ secrets: [KEY] },
		);
		expect(`${api.message} ${api.description}`).not.toContain(KEY);
	});
});
