/** A minimal animated GIF89a encoder: one global 256-colour palette, LZW-compressed frames. */

export interface GifAnimation {
	width: number;
	height: number;
	/** 256 RGB entries, 768 bytes. */
	palette: Uint8Array;
	/** Each frame: width * height palette indices. */
	frames: Uint8Array[];
	/** Frame delay in hundredths of a second. */
	delayCs: number;
}

export function encodeGif(anim: GifAnimation, comment?: string): Buffer {
	const parts: Buffer[] = [Buffer.from('GIF89a', 'latin1')];
	const screen = Buffer.alloc(7);
	screen.writeUInt16LE(anim.width, 0);
	screen.writeUInt16LE(anim.height, 2);
	screen[4] = 0xf7; // global colour table, 8 bits per channel, 256 entries
	parts.push(screen, Buffer.from(anim.palette));
	// NETSCAPE2.0 application extension: loop forever.
	parts.push(Buffer.from([0x21, 0xff, 0x0b]), Buffer.from('NETSCAPE2.0', 'latin1'));
	parts.push(Buffer.from([0x03, 0x01, 0x00, 0x00, 0x00]));
	if (comment) parts.push(Buffer.from([0x21, 0xfe]), subBlocks(Buffer.from(comment, 'latin1')));
	for (const frame of anim.frames) {
		const gce = Buffer.from([0x21, 0xf9, 0x04, 0x00, 0, 0, 0x00, 0x00]);
		gce.writeUInt16LE(anim.delayCs, 4);
		const descriptor = Buffer.alloc(10);
		descriptor[0] = 0x2c;
		descriptor.writeUInt16LE(anim.width, 5);
		descriptor.writeUInt16LE(anim.height, 7);
		parts.push(gce, descriptor, Buffer.from([8]), subBlocks(lzwEncode(frame, 8)));
	}
	parts.push(Buffer.from([0x3b]));
	return Buffer.concat(parts);
}

/** Splits data into GIF sub-blocks of at most 255 bytes, ended by a zero-length block. */
function subBlocks(data: Buffer): Buffer {
	const out: Buffer[] = [];
	for (let i = 0; i < data.length; i += 255) {
		const chunk = data.subarray(i, i + 255);
		out.push(Buffer.from([chunk.length]), chunk);
	}
	out.push(Buffer.from([0]));
	return Buffer.concat(out);
}

class BitWriter {
	private bytes: number[] = [];
	private acc = 0;
	private bits = 0;
	write(code: number, width: number): void {
		this.acc |= code << this.bits;
		this.bits += width;
		while (this.bits >= 8) {
			this.bytes.push(this.acc & 0xff);
			this.acc >>>= 8;
			this.bits -= 8;
		}
	}
	finish(): Buffer {
		if (this.bits > 0) this.bytes.push(this.acc & 0xff);
		return Buffer.from(this.bytes);
	}
}

/** Variable-width LZW as GIF defines it (codes up to 12 bits, clear code when the table fills). */
export function lzwEncode(indices: Uint8Array, minCodeSize: number): Buffer {
	const clear = 1 << minCodeSize;
	const eoi = clear + 1;
	const out = new BitWriter();
	let width = minCodeSize + 1;
	let next = eoi + 1;
	let table = new Map<number, number>();
	out.write(clear, width);
	if (indices.length === 0) {
		out.write(eoi, width);
		return out.finish();
	}
	let prefix = indices[0] as number;
	for (let i = 1; i < indices.length; i++) {
		const k = indices[i] as number;
		const key = (prefix << 8) | k;
		const found = table.get(key);
		if (found !== undefined) {
			prefix = found;
			continue;
		}
		out.write(prefix, width);
		if (next === 4096) {
			out.write(clear, width);
			table = new Map();
			width = minCodeSize + 1;
			next = eoi + 1;
		} else {
			table.set(key, next);
			// The decoder learns each code one step later, so widen once `next` needs the next bit.
			if (next === 1 << width && width < 12) width++;
			next++;
		}
		prefix = k;
	}
	out.write(prefix, width);
	out.write(eoi, width);
	return out.finish();
}
