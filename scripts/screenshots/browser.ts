/**
 * Headless Chromium from Debian's package (apt-get install chromium), driven by playwright-core
 * (already in node_modules through @n8n/node-cli; it never downloads a browser).
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const VIEWPORT = { width: 1280, height: 800 };

// As the machine's own probe starts it: no sandbox as root, and no background connections,
// which this offline machine would refuse many at a time.
const FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
	if (!existsSync(CHROMIUM)) {
		throw new Error(
			`No Chromium at ${CHROMIUM}: run \`apt-get install -y chromium\` or set CHROMIUM_PATH`,
		);
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { chromium } = require('playwright-core') as typeof import('playwright-core');
	// playwright-core gives the browser a fresh, empty --user-data-dir of its own.
	return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
