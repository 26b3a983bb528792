/** Screenshots of the Node-RED editor: the demo flow after a run, and Generate's edit dialog. */
import type { Browser, Page } from 'playwright-core';
import { takeShots } from './browser';

const GENERATE = '#render-demo-generate';
const INJECTS = ['#render-demo-inject-1', '#render-demo-inject-2', '#render-demo-inject-3'];

/** Hides the rotating tips of the info sidebar (its own close button would also pop a notice). */
async function closeTips(page: Page): Promise<void> {
	await page.evaluate(() => {
		const tips = document.querySelector<HTMLElement>('.red-ui-help-tips');
		const red = (window as unknown as { RED: { actions: { invoke(name: string): void } } }).RED;
		if (tips && tips.offsetParent !== null) red.actions.invoke('core:toggle-show-tips');
	});
}

async function runFlow(page: Page): Promise<void> {
	for (const inject of INJECTS) await page.click(`${inject} .red-ui-flow-node-button`);
	// One debug message per prompt once each file is written.
	await page.waitForFunction(
		(count) => document.querySelectorAll('.red-ui-debug-msg').length >= count,
		INJECTS.length,
		{ timeout: 60_000 },
	);
	await page.waitForTimeout(500);
}

export async function shootNodeRed(
	browser: Browser,
	url: string,
	outDir: string,
): Promise<string[]> {
	return takeShots(browser, outDir, async (page, shot) => {
		await page.goto(url);
		await page.waitForSelector(`#red-ui-workspace-chart ${GENERATE}`);
		await closeTips(page);
		// The palette filtered to this package's nodes.
		await page.click('#red-ui-palette-search input');
		await page.keyboard.type('render', { delay: 40 });
		await runFlow(page);
		await shot('node-red-flow.png');

		await page.dblclick(GENERATE);
		await page.waitForSelector('#node-input-family option[value="sdxl"]', { state: 'attached' });
		await page.waitForTimeout(800);
		await shot('node-red-generate-dialog.png');
	});
}
