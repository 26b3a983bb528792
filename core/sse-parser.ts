/**
 * A small text/event-stream parser (WHATWG HTML "server-sent events" §9.2.6) for transports
 * that get the stream as a plain response body, like n8n's. Yields events, and a heartbeat
 * for every chunk that completes no event (comments, partial lines), so idle detection
 * sees a live connection.
 */
import type { Readable } from 'node:stream';
import type { SseConnection, SseItem, SseMessage, TransportResponse } from './transport';

type Chunk = string | Uint8Array;

export class SseParser {
	private buffer = '';
	private pendingCr = false;
	private started = false;
	private data: string[] = [];
	private eventType = '';
	private eventId: string | undefined;
	private retry: number | undefined;
	private readonly decoder = new TextDecoder('utf-8');

	/** Feeds one chunk; returns the events it completed. */
	push(chunk: Chunk): SseMessage[] {
		let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
		if (!this.started && text.length > 0) {
			this.started = true;
			if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
		}
		// A CR ending the previous chunk already closed its line; a following LF is part of it.
		if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
		this.pendingCr = false;
		this.buffer += text;
		const out: SseMessage[] = [];
		let start = 0;
		for (let i = 0; i < this.buffer.length; i++) {
			const c = this.buffer[i];
			if (c !== '\n' && c !== '\r') continue;
			this.line(this.buffer.slice(start, i), out);
			if (c === '\r') {
				if (i + 1 < this.buffer.length) {
					if (this.buffer[i + 1] === '\n') i++;
				} else {
					this.pendingCr = true;
				}
			}
			start = i + 1;
		}
		this.buffer = this.buffer.slice(start);
		return out;
	}

	private line(line: string, out: SseMessage[]): void {
		if (line === '') {
			this.dispatch(out);
			return;
		}
		if (line.startsWith(':')) return;
		const colon = line.indexOf(':');
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? '' : line.slice(colon + 1);
		if (value.startsWith(' ')) value = value.slice(1);
		switch (field) {
			case 'event':
				this.eventType = value;
				break;
			case 'data':
				this.data.push(value);
				break;
			case 'id':
				if (!value.includes('\0')) this.eventId = value;
				break;
			case 'retry':
				if (/^\d+$/.test(value)) this.retry = Number(value);
				break;
			default:
				break;
		}
	}

	private dispatch(out: SseMessage[]): void {
		const id = this.eventId;
		const retry = this.retry;
		this.eventId = undefined;
		this.retry = undefined;
		if (this.data.length === 0) {
			// No data: no event, but a retry hint must still reach the consumer.
			if (retry !== undefined)
				out.push({ event: '', data: '', retry, ...(id !== undefined ? { id } : {}) });
			this.eventType = '';
			return;
		}
		const message: SseMessage = { event: this.eventType || 'message', data: this.data.join('\n') };
		if (id !== undefined) message.id = id;
		if (retry !== undefined) message.retry = retry;
		out.push(message);
		this.data = [];
		this.eventType = '';
	}
}

/** Parses a stream of chunks into SSE items. */
export async function* parseSseStream(chunks: AsyncIterable<Chunk>): AsyncGenerator<SseItem> {
	const parser = new SseParser();
	for await (const chunk of chunks) {
		const messages = parser.push(chunk);
		if (messages.length === 0) {
			yield { type: 'heartbeat' };
			continue;
		}
		for (const message of messages) {
			// A bare `retry:` block is delivered as an unnamed event with no data.
			yield { type: 'event', message };
		}
	}
}

async function* nothing(): AsyncGenerator<SseItem> {
	// An empty stream for refused connections.
}

/**
 * Wraps a streamed HTTP response (e.g. from n8n's request helper) as an SseConnection.
 * A refused response (not 200, or not text/event-stream) yields no items.
 */
export function sseConnectionFromResponse(
	response: TransportResponse<Readable | AsyncIterable<Chunk>>,
	onClose?: () => void,
): SseConnection {
	const contentType = (response.headers['content-type'] ?? '').toLowerCase();
	const usable = response.status === 200 && contentType.startsWith('text/event-stream');
	const body = response.body as Partial<Readable> & AsyncIterable<Chunk>;
	let closed = false;
	const close = () => {
		if (closed) return;
		closed = true;
		if (typeof body.destroy === 'function') body.destroy();
		onClose?.();
	};
	if (!usable) close();
	return {
		status: response.status,
		headers: response.headers,
		items: usable ? guarded(parseSseStream(body), () => closed) : nothing(),
		close,
	};
}

/** Ends iteration quietly when the consumer closed the connection itself. */
async function* guarded(
	items: AsyncGenerator<SseItem>,
	isClosed: () => boolean,
): AsyncGenerator<SseItem> {
	try {
		for await (const item of items) {
			if (isClosed()) return;
			yield item;
		}
	} catch (error) {
		if (isClosed()) return;
		throw error;
	}
}
