/** A minimal PNG encoder: 8-bit RGB, no filtering, zlib from node:zlib. */
import { deflateSync } from 'node:zlib';
import { crc32 } from './crc32';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Private, ancillary, safe-to-copy chunk type that decoders skip; used for padding. */
export const PAD_CHUNK_TYPE = 'emPd';
const MAX_PAD_CHUNK = 64 * 1024 * 1024;

export interface RgbImage {
	width: number;
	height: number;
	/** width * height * 3 bytes, row-major RGB. */
	pixels: Uint8Array;
}

export function pngChunk(type: string, data: Uint8Array): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, 'latin1');
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(head.subarray(4), data), 0);
	return Buffer.concat([head, data, crc]);
}

export function encodePng(
	image: RgbImage,
	options: { text?: Record<string, string>; padTo?: number } = {},
): Buffer {
	const { width, height, pixels } = image;
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // colour type RGB
	const stride = width * 3;
	const raw = Buffer.alloc((stride + 1) * height);
	for (let y = 0; y < height; y++) {
		// Filter byte 0 (None) starts each scanline; the gradients compress well enough without.
		Buffer.from(pixels.buffer, pixels.byteOffset + y * stride, stride).copy(
			raw,
			y * (stride + 1) + 1,
		);
	}
	const chunks = [pngChunk('IHDR', ihdr)];
	for (const [key, value] of Object.entries(options.text ?? {})) {
		chunks.push(pngChunk('tEXt', Buffer.from(`${key}\0${value}`, 'latin1')));
	}
	chunks.push(pngChunk('IDAT', deflateSync(raw, { level: 6 })));
	const end = pngChunk('IEND', Buffer.alloc(0));
	const size = SIGNATURE.length + chunks.reduce((n, c) => n + c.length, 0) + end.length;
	chunks.push(...padChunks((options.padTo ?? 0) - size));
	return Buffer.concat([SIGNATURE, ...chunks, end]);
}

/** Ancillary chunks of deterministic filler so a result reaches a requested size. */
function padChunks(missing: number): Buffer[] {
	const out: Buffer[] = [];
	let left = missing;
	while (left > 12) {
		const len = Math.min(left - 12, MAX_PAD_CHUNK);
		out.push(pngChunk(PAD_CHUNK_TYPE, filler(len)));
		left -= len + 12;
	}
	return out;
}

let lastFiller: Buffer | undefined;

/**
 * Non-repeating bytes so transport compression cannot make a padded file small again.
 * Memoised: every padded result of a run asks for about the same length.
 */
export function filler(length: number): Buffer {
	if (lastFiller && lastFiller.length >= length) return lastFiller.subarray(0, length);
	lastFiller = makeFiller(length);
	return lastFiller;
}

function makeFiller(length: number): Buffer {
	const buf = Buffer.alloc(length);
	let x = 0x9e3779b9;
	for (let i = 0; i + 4 <= length; i += 4) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		buf.writeUInt32LE(x >>> 0, i);
	}
	return buf;
}
