/**
 * Puts a downloaded result on the message: in memory as a Buffer, or streamed to a file
 * (for large videos) so the flow never holds the whole file.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DownloadedFile } from '../../core/types';
import type { NodeMessage } from './red';

async function collect(file: DownloadedFile, signal: AbortSignal): Promise<Buffer> {
	const chunks: Buffer[] = [];
	try {
		for await (const chunk of file.stream) {
			signal.throwIfAborted();
			chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
		}
	} catch (err) {
		// Release the connection at once rather than when the stream is collected.
		(file.stream as Partial<Readable>).destroy?.();
		throw err;
	}
	return Buffer.concat(chunks);
}

async function isDirectory(path: string): Promise<boolean> {
	try {
		return (await stat(path)).isDirectory();
	} catch {
		return false;
	}
}

/** A path ending in a separator, or naming an existing folder, receives `<jobId>.<ext>`. */
export async function targetPath(outputFile: string, fileName: string): Promise<string> {
	const folder = /[/\\]$/.test(outputFile) || (await isDirectory(outputFile));
	return resolve(folder ? join(outputFile, fileName) : outputFile);
}

async function writeFile(
	file: DownloadedFile,
	target: string,
	signal: AbortSignal,
): Promise<number> {
	await mkdir(dirname(target), { recursive: true });
	// Write beside the target and rename, so a reader never sees half a file.
	const partial = `${target}.${process.pid}.${Date.now()}.part`;
	let bytes = 0;
	const counted = Readable.from(file.stream).on('data', (chunk: Buffer) => {
		bytes += chunk.length;
	});
	try {
		await pipeline(counted, createWriteStream(partial), { signal });
		await rename(partial, target);
	} catch (err) {
		await rm(partial, { force: true });
		throw err;
	}
	return bytes;
}

export async function deliver(
	file: DownloadedFile,
	msg: NodeMessage,
	outputFile: string | undefined,
	signal: AbortSignal,
): Promise<void> {
	msg.contentType = file.mimeType;
	if (!outputFile) {
		const data = await collect(file, signal);
		msg.payload = data;
		msg.filename = file.fileName;
		msg.size = data.length;
		return;
	}
	const target = await targetPath(outputFile, file.fileName);
	msg.size = await writeFile(file, target, signal);
	msg.payload = target;
	msg.filename = target;
}
