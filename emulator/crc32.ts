/** CRC-32 (IEEE) as PNG chunks need it; node:zlib only exposes it from Node 22 on. */
const TABLE = buildTable();

function buildTable(): Uint32Array {
	const table = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		table[n] = c >>> 0;
	}
	return table;
}

export function crc32(...parts: Uint8Array[]): number {
	let crc = 0xffffffff;
	for (const part of parts) {
		for (let i = 0; i < part.length; i++) {
			crc = (TABLE[(crc ^ (part[i] as number)) & 0xff] as number) ^ (crc >>> 8);
		}
	}
	return (crc ^ 0xffffffff) >>> 0;
}
