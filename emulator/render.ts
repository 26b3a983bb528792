/**
 * Turns a job request into a real result file: a PNG for images, an animated GIF for video.
 * Pure and deterministic: the same prompt, seed, model (and input image) give the same bytes,
 * and different prompts give visibly different pictures (colours and shapes come from a hash).
 */
import { createHash } from 'node:crypto';
import { encodeGif } from './gif';
import { encodePng, type RgbImage } from './png';
import type { JobRequest, RenderedResult } from './types';

const IMAGE_SIZES: Record<string, [number, number]> = {
	'1024': [1024, 1024],
	'512': [512, 512],
	portrait: [768, 1024],
	landscape: [1024, 768],
};
const VIDEO_SIZES: Record<string, [number, number]> = {
	'1024': [512, 512],
	'512': [256, 256],
	portrait: [240, 320],
	landscape: [320, 240],
};
const VIDEO_FRAMES = 12;

export type RenderRequest = Pick<
	JobRequest,
	'modality' | 'family' | 'model' | 'format' | 'prompt'
> &
	Partial<Pick<JobRequest, 'seed' | 'image' | 'task' | 'steps' | 'guidance' | 'backend'>>;

export interface RenderOptions {
	/** Pad the file to about this many bytes (large-result benchmark). */
	padBytes?: number;
}

export function imageSize(modality: string, format: string): [number, number] {
	const table = modality === 'video' ? VIDEO_SIZES : IMAGE_SIZES;
	return table[format] ?? (modality === 'video' ? [256, 256] : [512, 512]);
}

export function renderResult(req: RenderRequest, options: RenderOptions = {}): RenderedResult {
	const seed = hashBytes(req);
	const [width, height] = imageSize(req.modality, req.format);
	const scene = sceneFrom(seed);
	if (req.modality === 'video') {
		const data = padGif(renderGif(scene, width, height), options.padBytes);
		return { data, mimeType: 'image/gif', extension: 'gif' };
	}
	const image = paint(scene, width, height, 0);
	const text = { Software: 'render-service-emulator', Comment: `${req.family}/${req.model}` };
	return {
		data: encodePng(image, { text, padTo: options.padBytes }),
		mimeType: 'image/png',
		extension: 'png',
	};
}

function hashBytes(req: RenderRequest): Buffer {
	const image = req.image ? createHash('sha256').update(req.image).digest('hex') : '';
	const key = JSON.stringify([req.prompt, req.seed ?? null, req.family, req.model, image]);
	return createHash('sha256').update(key).digest();
}

interface Shape {
	kind: 'circle' | 'rect';
	/** Centre and size as fractions of the picture. */
	x: number;
	y: number;
	r: number;
	color: [number, number, number];
	/** Drift per frame (video), as a fraction of the picture. */
	dx: number;
	dy: number;
}

interface Scene {
	from: [number, number, number];
	to: [number, number, number];
	/** Gradient direction. */
	angle: number;
	shapes: Shape[];
}

function sceneFrom(seed: Buffer): Scene {
	let i = 0;
	const byte = (): number => seed[i++ % seed.length] as number;
	const frac = (): number => byte() / 255;
	const color = (): [number, number, number] => [byte(), byte(), byte()];
	const from = color();
	const to = color();
	const angle = frac() * Math.PI * 2;
	const count = 3 + (byte() % 4);
	const shapes: Shape[] = [];
	for (let s = 0; s < count; s++) {
		shapes.push({
			kind: byte() % 2 === 0 ? 'circle' : 'rect',
			x: 0.1 + frac() * 0.8,
			y: 0.1 + frac() * 0.8,
			r: 0.06 + frac() * 0.22,
			color: color(),
			dx: (frac() - 0.5) * 0.04,
			dy: (frac() - 0.5) * 0.04,
		});
	}
	return { from, to, angle, shapes };
}

// Hot loops avoid global lookups such as Math.*: under jest's vm context every global access is
// slow, and tests render many pictures.
function paint(scene: Scene, width: number, height: number, frame: number): RgbImage {
	const pixels = new Uint8Array(width * height * 3);
	const cos = Math.cos(scene.angle);
	const sin = Math.sin(scene.angle);
	const unit = Math.min(width, height);
	const shapes = scene.shapes.map((s) => ({
		circle: s.kind === 'circle',
		cx: wrap(s.x + s.dx * frame) * width,
		cy: wrap(s.y + s.dy * frame) * height,
		rr: s.r * unit,
		r: s.color[0],
		g: s.color[1],
		b: s.color[2],
	}));
	const [r0, g0, b0] = scene.from;
	const [r1, g1, b1] = scene.to;
	let o = 0;
	for (let y = 0; y < height; y++) {
		const rowTerm = (y / height - 0.5) * sin;
		for (let x = 0; x < width; x++) {
			const t = clamp01(0.5 + (x / width - 0.5) * cos + rowTerm);
			let r = r0 + (r1 - r0) * t;
			let g = g0 + (g1 - g0) * t;
			let b = b0 + (b1 - b0) * t;
			// Later shapes are drawn over earlier ones.
			for (let i = 0; i < shapes.length; i++) {
				const s = shapes[i] as (typeof shapes)[number];
				const dx = x - s.cx;
				const dy = y - s.cy;
				const inside = s.circle
					? dx * dx + dy * dy <= s.rr * s.rr
					: (dx < 0 ? -dx : dx) <= s.rr && (dy < 0 ? -dy : dy) <= s.rr * 0.6;
				if (inside) {
					r = s.r;
					g = s.g;
					b = s.b;
				}
			}
			pixels[o++] = r;
			pixels[o++] = g;
			pixels[o++] = b;
		}
	}
	return { width, height, pixels };
}

function renderGif(scene: Scene, width: number, height: number): Buffer {
	const palette = webPalette();
	const frames: Uint8Array[] = [];
	for (let f = 0; f < VIDEO_FRAMES; f++) frames.push(quantize(paint(scene, width, height, f)));
	return encodeGif({ width, height, palette, frames, delayCs: 8 }, 'render-service-emulator');
}

/** 6x6x6 colour cube plus a grey ramp: good enough for flat shapes and gradients. */
function webPalette(): Uint8Array {
	const p = new Uint8Array(768);
	for (let i = 0; i < 216; i++) {
		p[i * 3] = Math.floor(i / 36) * 51;
		p[i * 3 + 1] = (Math.floor(i / 6) % 6) * 51;
		p[i * 3 + 2] = (i % 6) * 51;
	}
	for (let i = 216; i < 256; i++) p.fill(Math.round(((i - 216) / 39) * 255), i * 3, i * 3 + 3);
	return p;
}

function quantize(image: RgbImage): Uint8Array {
	const out = new Uint8Array(image.width * image.height);
	const px = image.pixels;
	for (let i = 0, o = 0; i < out.length; i++, o += 3) {
		const r = ((px[o] as number) / 51 + 0.5) | 0;
		const g = ((px[o + 1] as number) / 51 + 0.5) | 0;
		const b = ((px[o + 2] as number) / 51 + 0.5) | 0;
		out[i] = r * 36 + g * 6 + b;
	}
	return out;
}

/** GIF has no skipped chunk type as PNG does; a comment extension carries the padding. */
function padGif(gif: Buffer, padBytes?: number): Buffer {
	const missing = (padBytes ?? 0) - gif.length;
	if (missing <= 8) return gif;
	const blocks: Buffer[] = [Buffer.from([0x21, 0xfe])];
	let left = missing - 3;
	while (left > 0) {
		const n = Math.min(255, left - 1 > 0 ? left - 1 : 1);
		const block = Buffer.alloc(n + 1, 0x20);
		block[0] = n;
		blocks.push(block);
		left -= n + 1;
	}
	blocks.push(Buffer.from([0]));
	// Insert before the trailer byte.
	return Buffer.concat([gif.subarray(0, gif.length - 1), ...blocks, gif.subarray(gif.length - 1)]);
}

const wrap = (v: number): number => ((v % 1) + 1) % 1;
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
