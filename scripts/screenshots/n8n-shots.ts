/** Screenshots of the n8n editor: the demo workflow run, Generate Media's panel, the node panel. */
import type { Browser, Page } from 'playwright-core';
import { takeShots } from './browser';

export interface N8nTarget {
	url: string;
	login: { email: string; password: string };
	workflowId: string;
}

const NODE = '[data-test-id="canvas-node"][data-node-name="Generate Media"]';

async function signIn(page: Page, target: N8nTarget): Promise<void> {
	await page.goto(`${target.url}/signin`);
	await page.fill('#emailOrLdapLoginId', target.login.email);
	await page.fill('#password', target.login.password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL((url) => !url.pathname.includes('signin'));
}

/** Runs the workflow from the editor, so the canvas and the panel show real results. */
async function execute(page: Page): Promise<void> {
	await page.click('[data-test-id="execute-workflow-button"]');
	await page.waitForSelector(`${NODE} [data-test-id="canvas-node-status-success"]`, {
		timeout: 60_000,
	});
	// The "executed successfully" toast fades by itself; close it for a clean picture.
	const close = page.locator('.el-notification__closeBtn');
	if (await close.count()) await close.first().click();
	await page.waitForTimeout(800);
}

export async function shootN8n(
	browser: Browser,
	target: N8nTarget,
	outDir: string,
): Promise<string[]> {
	return takeShots(browser, outDir, async (page, shot) => {
		await signIn(page, target);
		await page.goto(`${target.url}/workflow/${target.workflowId}`);
		await page.waitForSelector(NODE);
		await execute(page);
		// Two small workflows look lost at 100 %: zoom in a step.
		await page.click('[data-test-id="zoom-in-button"]');
		await page.waitForTimeout(600);
		await shot('n8n-workflow.png');

		await page.dblclick(NODE);
		await page.waitForSelector('[data-test-id="ndv"] [data-test-id="parameter-input-format"]');
		await page.waitForSelector('[data-test-id="ndv-binary-data_0"]');
		// The option lists load from the emulator's catalogue; let their labels settle.
		await page.waitForTimeout(1500);
		await shot('n8n-generate-media.png');

		await page.keyboard.press('Escape');
		await page.click('[data-test-id="node-creator-plus-button"]');
		await page.waitForTimeout(500);
		await page.keyboard.type('render', { delay: 40 });
		await page.getByText('Render Service: Generate Media').first().waitFor();
		await page.waitForTimeout(500);
		await shot('n8n-node-panel.png');
	});
}
