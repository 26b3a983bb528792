/**
 * The emulator's result files are real: PNGs and animated GIFs that standard decoders accept.
 * The checks below decode them independently (zlib's own CRC-32 and inflate, and a separate
 * LZW decoder), so a broken encoder fails here rather than in a person's image viewer.
 */
import { crc32, inflateSync } from 'node:zlib';
import { renderResult } from '../../emulator';

const base = {
	modality: 'image',
	family: 'flux',
	model: 'dev',
	task: 't2i',
	prompt: 'a lighthouse at dusk',
};

interface Chunk {
	type: string;
	data: Buffer;
}

function pngChunks(file: Buffer): Chunk[] {
	expect(file.subarray(0, 8)).toEqual(
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	);
	const chunks: Chunk[] = [];
	let offset = 8;
	while (offset < file.length) {
		const length = file.readUInt32BE(offset);
		const type = file.toString('latin1', offset + 4, offset + 8);
		const data = file.subarray(offset + 8, offset + 8 + length);
		const crc = file.readUInt32BE(offset + 8 + length);
		expect(crc).toBe(crc32(file.subarray(offset + 4, offset + 8 + length)));
		chunks.push({ type, data });
		offset += 12 + length;
	}
	return chunks;
}

function decodePng(file: Buffer): { width: number; height: number; pixels: Buffer } {
	const chunks = pngChunks(file);
	expect(chunks[0]?.type).toBe('IHDR');
	expect(chunks[chunks.length - 1]?.type).toBe('IEND');
	const ihdr = chunks[0]?.data as Buffer;
	const width = ihdr.readUInt32BE(0);
	const height = ihdr.readUInt32BE(4);
	expect([ihdr[8], ihdr[9]]).toEqual([8, 2]);
	const raw = inflateSync(
		Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)),
	);
	expect(raw.length).toBe((width * 3 + 1) * height);
	return { width, height, pixels: raw };
}

describe('image results (PNG)', () => {
	it.each([
		['1024', 1024, 1024],
		['512', 512, 512],
		['portrait', 768, 1024],
		['landscape', 1024, 768],
	])('format %s gives a valid %ix%i PNG', (format, width, height) => {
		const result = renderResult({ ...base, format });
		expect(result.mimeType).toBe('image/png');
		expect(result.extension).toBe('png');
		const png = decodePng(result.data);
		expect([png.width, png.height]).toEqual([width, height]);
	});

	it('is deterministic for prompt, seed and model, and differs when any of them changes', () => {
		const a = renderResult({ ...base, format: '512', seed: 7 }).data;
		expect(renderResult({ ...base, format: '512', seed: 7 }).data.equals(a)).toBe(true);
		const others = [
			renderResult({ ...base, format: '512', seed: 8 }).data,
			renderResult({ ...base, format: '512', seed: 7, prompt: 'a red fox' }).data,
			renderResult({ ...base, format: '512', seed: 7, model: 'schnell' }).data,
		];
		for (const other of others) expect(other.equals(a)).toBe(false);
	});

	it('makes different prompts visibly different (many pixels change)', () => {
		const a = decodePng(renderResult({ ...base, format: '512' }).data).pixels;
		const b = decodePng(
			renderResult({ ...base, format: '512', prompt: 'a quiet harbour' }).data,
		).pixels;
		let differing = 0;
		for (let i = 0; i < a.length; i += 3)
			if (Math.abs((a[i] as number) - (b[i] as number)) > 16) differing++;
		expect(differing / (a.length / 3)).toBeGreaterThan(0.25);
	});

	it('pads a large result with skippable chunks to the requested size', () => {
		const padBytes = 3 * 1024 * 1024;
		const result = renderResult({ ...base, format: '512' }, { padBytes });
		expect(result.data.length).toBe(padBytes);
		const chunks = pngChunks(result.data);
		// Lower-case first letter: ancillary, so every decoder skips it.
		expect(chunks.some((c) => c.type === 'emPd')).toBe(true);
		expect(decodePng(result.data).width).toBe(512);
	});
});

/** An independent GIF reader: header, frames, and LZW decoding of each frame. */
function decodeGif(file: Buffer): { width: number; height: number; frames: Uint8Array[] } {
	expect(file.toString('latin1', 0, 6)).toBe('GIF89a');
	const width = file.readUInt16LE(6);
	const height = file.readUInt16LE(8);
	const flags = file[10] as number;
	let offset = 13 + (flags & 0x80 ? 3 * (1 << ((flags & 7) + 1)) : 0);
	const frames: Uint8Array[] = [];
	const readBlocks = (): Buffer => {
		const parts: Buffer[] = [];
		for (let size = file[offset++] as number; size > 0; size = file[offset++] as number) {
			parts.push(file.subarray(offset, offset + size));
			offset += size;
		}
		return Buffer.concat(parts);
	};
	for (;;) {
		const introducer = file[offset++];
		if (introducer === 0x3b) break;
		if (introducer === 0x21) {
			offset++;
			readBlocks();
			continue;
		}
		expect(introducer).toBe(0x2c);
		const w = file.readUInt16LE(offset + 4);
		const h = file.readUInt16LE(offset + 6);
		offset += 9;
		const minCodeSize = file[offset++] as number;
		frames.push(lzwDecode(readBlocks(), minCodeSize, w * h));
	}
	return { width, height, frames };
}

function lzwDecode(data: Buffer, minCodeSize: number, pixels: number): Uint8Array {
	const clear = 1 << minCodeSize;
	const out: number[] = [];
	let dict: number[][] = [];
	const reset = (): void => {
		dict = [];
		for (let i = 0; i < clear; i++) dict.push([i]);
		dict.push([], []);
	};
	reset();
	let size = minCodeSize + 1;
	let bitPos = 0;
	let prev: number[] | undefined;
	for (;;) {
		let code = 0;
		for (let i = 0; i < size; i++, bitPos++) {
			const byte = data[bitPos >> 3];
			if (byte === undefined) throw new Error('LZW data ended without an end code');
			code |= ((byte >> (bitPos & 7)) & 1) << i;
		}
		if (code === clear) {
			reset();
			size = minCodeSize + 1;
			prev = undefined;
			continue;
		}
		if (code === clear + 1) break;
		let entry = dict[code];
		if (entry === undefined) {
			if (!prev || code !== dict.length) throw new Error(`bad LZW code ${code}`);
			entry = [...prev, prev[0] as number];
		}
		out.push(...entry);
		if (prev && dict.length < 4096) dict.push([...prev, entry[0] as number]);
		if (dict.length === 1 << size && size < 12) size++;
		prev = entry;
	}
	expect(out.length).toBe(pixels);
	return Uint8Array.from(out);
}

describe('video results (animated GIF)', () => {
	const video = { ...base, modality: 'video', family: 'motion', model: 'clip-v1' };

	it.each([
		['512', 256, 256],
		['landscape', 320, 240],
		['portrait', 240, 320],
	])('format %s gives a decodable animated %ix%i GIF', (format, width, height) => {
		const result = renderResult({ ...video, format });
		expect(result.mimeType).toBe('image/gif');
		expect(result.extension).toBe('gif');
		const gif = decodeGif(result.data);
		expect([gif.width, gif.height]).toEqual([width, height]);
		expect(gif.frames.length).toBeGreaterThan(1);
		// The picture moves: consecutive frames differ.
		expect(
			Buffer.from(gif.frames[0] as Uint8Array).equals(Buffer.from(gif.frames[1] as Uint8Array)),
		).toBe(false);
	});

	it('stays decodable when the LZW table fills and is cleared (large frames)', () => {
		const gif = decodeGif(
			renderResult({ ...video, format: '1024', prompt: 'busy city street, rain' }).data,
		);
		expect(gif.frames).toHaveLength(12);
	});

	it('pads a large video result and stays decodable', () => {
		const result = renderResult({ ...video, format: '512' }, { padBytes: 1024 * 1024 });
		expect(Math.abs(result.data.length - 1024 * 1024)).toBeLessThan(16);
		expect(decodeGif(result.data).frames).toHaveLength(12);
	});
});
