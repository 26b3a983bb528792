/**
 * The leak scanner the fault matrix and the security suite rely on must find the key wherever
 * it hides: otherwise "leaks: 0" would prove nothing.
 */
import { NodeApiError } from 'n8n-workflow';

import { captureOutput, deepText, SECRET_KEY } from '../helpers/fault-capture';

const node = {
	id: 'n',
	name: 'Generate',
	type: 'x',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};

describe('the leak scanner', () => {
	it.each([
		['a message', new Error(`bad ${SECRET_KEY}`)],
		['a cause', new Error('outer', { cause: new Error(`inner ${SECRET_KEY}`) })],
		['an extra property', Object.assign(new Error('x'), { description: `use ${SECRET_KEY}` })],
		[
			'n8n error context',
			Object.assign(new NodeApiError(node, { message: 'x' }), { context: { key: SECRET_KEY } }),
		],
		['a nested output item', { json: { deep: [{ header: `Bearer ${SECRET_KEY}` }] } }],
	])('finds the key in %s', (_where, value) => {
		expect(deepText(value)).toContain(SECRET_KEY);
	});

	it('finds the key in console output and in what was added, and not elsewhere', () => {
		const capture = captureOutput();
		try {
			console.log('harmless');
			expect(capture.leaks()).toBe(0);
			console.warn({ authorization: `Bearer ${SECRET_KEY}` });
			capture.add({ status: { text: SECRET_KEY } });
			expect(capture.leaks()).toBe(2);
		} finally {
			capture.restore();
		}
	});

	it('does not choke on circular structures or binary data', () => {
		const circular: Record<string, unknown> = { key: SECRET_KEY, data: Buffer.from(SECRET_KEY) };
		circular.self = circular;
		const text = deepText(circular);
		expect(text).toContain(SECRET_KEY);
		expect(text).toContain('[bytes]');
	});
});
