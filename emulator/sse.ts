/**
 * GET {async}/jobs/{id}/events: the job's event log as server-sent events. A new stream gets
 * the whole log (or only the terminal event when the job has already ended); a resumed stream
 * gets exactly the events after its Last-Event-ID. The stream ends after a terminal event.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Context, resultUrl } from './context';
import { notFound } from './errors';
import { guard } from './guard';
import { type Job, type JobEvent, TERMINAL } from './jobs';
import { ownJob } from './queue-routes';

const TERMINAL_EVENTS = new Set(['complete', 'failed', 'cancelled']);

export async function streamEvents(
	ctx: Context,
	req: IncomingMessage,
	res: ServerResponse,
	id: string,
): Promise<void> {
	const apiKey = await guard(ctx, 'events', req);
	if (ctx.faults.sse.sseDisabled) throw notFound();
	const job = ownJob(ctx, id, apiKey);
	ctx.counters.sseConnections++;
	res.writeHead(200, {
		'Content-Type': 'text/event-stream; charset=utf-8',
		'Cache-Control': 'no-cache, no-transform',
		Connection: 'keep-alive',
		'X-Accel-Buffering': 'no',
	});
	res.flushHeaders();
	ctx.streams.add(res);
	const cleanups: Array<() => void> = [() => ctx.streams.delete(res)];
	const cleanup = (): void => cleanups.splice(0).forEach((fn) => fn());
	res.on('close', cleanup);
	res.on('error', cleanup);
	if (ctx.faults.sse.sseSilent) return;
	res.write(`retry: ${ctx.settings.sseRetryMs}\n\n`);

	const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.settings.heartbeatMs);
	ctx.timers.add(heartbeat);
	cleanups.push(() => {
		clearInterval(heartbeat);
		ctx.timers.delete(heartbeat);
	});

	const dropAfter = ctx.faults.sse.sseDropAfterEvents;
	let sent = 0;
	const send = (event: JobEvent): boolean => {
		res.write(format(ctx, job, event));
		sent++;
		const terminal = TERMINAL_EVENTS.has(event.event);
		if (terminal || (dropAfter !== undefined && sent >= dropAfter)) {
			cleanup();
			res.end();
			return false;
		}
		return true;
	};
	if (dropAfter !== undefined && dropAfter <= 0) {
		cleanup();
		res.end();
		return;
	}
	for (const event of backlog(job, req.headers['last-event-id'])) {
		if (!send(event)) return;
	}
	cleanups.push(ctx.store.subscribe(job, (event) => void send(event)));
}

function backlog(job: Job, lastEventId: string | string[] | undefined): JobEvent[] {
	const raw = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
	const last = raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
	const after = last === undefined ? [] : job.events.filter((e) => e.seq > last);
	if (last !== undefined && (after.length > 0 || !TERMINAL.has(job.status))) return after;
	// A finished job always ends the stream with its terminal event, even for a client that
	// claims to have seen it: an open stream that can never end helps nobody.
	if (TERMINAL.has(job.status)) return job.events.slice(-1);
	return job.events;
}

function format(ctx: Context, job: Job, event: JobEvent): string {
	// The complete event carries a freshly signed URL, so a late reader never gets an expired one.
	const data =
		event.event === 'complete' ? { ...event.data, url: resultUrl(ctx, job.id) } : event.data;
	return `id: ${event.seq}\nevent: ${event.event}\ndata: ${JSON.stringify(data)}\n\n`;
}
