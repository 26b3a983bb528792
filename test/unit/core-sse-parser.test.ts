import { Readable } from 'node:stream';
import { parseSseStream, SseParser, sseConnectionFromResponse } from '../../core/sse-parser';
import type { SseItem } from '../../core/transport';

async function collect(items: AsyncIterable<SseItem>): Promise<SseItem[]> {
	const out: SseItem[] = [];
	for await (const item of items) out.push(item);
	return out;
}

describe('SSE parser', () => {
	it('parses fields, multi-line data, comments and the default event name', () => {
		const parser = new SseParser();
		const events = parser.push(
			': comment\nid: 7\nevent: progress\ndata: {"a":1,\ndata:  "b":2}\n\ndata: plain\n\n',
		);
		expect(events).toEqual([
			{ event: 'progress', id: '7', data: '{"a":1,\n "b":2}' },
			{ event: 'message', data: 'plain' },
		]);
	});

	it('handles CRLF, lone CR, a BOM and lines split across chunks', () => {
		const parser = new SseParser();
		const chunks = ['\uFEFFevent: st', 'atus\r', '\ndata: x\r\r', 'data: y\r\n', '\r\n'];
		const events = chunks.flatMap((c) => parser.push(c));
		expect(events).toEqual([
			{ event: 'status', data: 'x' },
			{ event: 'message', data: 'y' },
		]);
	});

	it('decodes UTF-8 split inside a character', () => {
		const bytes = Buffer.from('data: héllo ✓\n\n');
		const parser = new SseParser();
		const events = [bytes.subarray(0, 8), bytes.subarray(8, 15), bytes.subarray(15)].flatMap((b) =>
			parser.push(b),
		);
		expect(events).toEqual([{ event: 'message', data: 'héllo ✓' }]);
	});

	it('keeps retry hints, ignores bad retry values, ids with NUL and unknown fields', () => {
		const parser = new SseParser();
		expect(parser.push('retry: 1500\n\n')).toEqual([{ event: '', data: '', retry: 1500 }]);
		expect(parser.push('retry: soon\nid: a\0b\nfoo: bar\ndata: z\n\n')).toEqual([
			{ event: 'message', data: 'z' },
		]);
	});

	it('yields heartbeats for chunks that complete no event', async () => {
		const items = await collect(parseSseStream(Readable.from([': ping\n\n', 'data: 1', '\n\n'])));
		expect(items).toEqual([
			{ type: 'heartbeat' },
			{ type: 'heartbeat' },
			{ type: 'event', message: { event: 'message', data: '1' } },
		]);
	});

	it('wraps a streamed response; a refused one yields nothing and is closed', async () => {
		const ok = sseConnectionFromResponse({
			status: 200,
			headers: { 'content-type': 'text/event-stream; charset=utf-8' },
			body: Readable.from(['id: 1\nevent: complete\ndata: {}\n\n']),
		});
		expect((await collect(ok.items)).filter((i) => i.type === 'event')).toHaveLength(1);
		const body = Readable.from(['{}']);
		const refused = sseConnectionFromResponse({
			status: 404,
			headers: { 'content-type': 'application/json' },
			body,
		});
		expect(refused.status).toBe(404);
		expect(await collect(refused.items)).toEqual([]);
		expect(body.destroyed).toBe(true);
	});
});
