/**
 * Headless Chromium from Debian's package (apt-get install chromium), driven by playwright-core
 * (already in node_modules through @n8n/node-cli; it never downloads a browser).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

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

/**
 * Runs `take` on a fresh page, where `shot(name)` saves a screenshot as `outDir/name`; returns
 * the files in the order taken and closes the page whatever happens.
 */
export async function takeShots(
	browser: Browser,
	outDir: string,
	take: (page: Page, shot: (name: string) => Promise<void>) => Promise<void>,
): Promise<string[]> {
	const page = await browser.newPage({ viewport: VIEWPORT });
	const files: string[] = [];
	try {
		await take(page, async (name) => {
			const file = join(outDir, name);
			await page.screenshot({ path: file });
			files.push(file);
		});
		return files;
	} finally {
		await page.close();
	}
}
