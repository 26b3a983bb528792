/**
 * A stand-in for an n8n process, for n8n-trigger-crash.test.ts: activates the Render Service
 * Trigger in n8n's real engine, keeps every execution it starts running, and prints the job ID
 * of each emit. The test kills it with SIGKILL in the middle of such an execution.
 * Environment: RENDER_API_KEY, RENDER_BASE_URL, RENDER_ASYNC_URL, N8N_USER_FOLDER.
 */
import type { RunningEmulator } from '../../emulator/types';
import { createRenderEngine, renderNode, TYPES } from '../helpers/n8n-render';

async function main(): Promise<void> {
	const emulator = {
		apiKey: process.env.RENDER_API_KEY,
		baseUrl: process.env.RENDER_BASE_URL,
		asyncUrl: process.env.RENDER_ASYNC_URL,
	} as unknown as RunningEmulator;
	const trigger = await createRenderEngine(emulator).activateTrigger(
		renderNode('Render Service Trigger', TYPES.trigger, { options: { rescanSeconds: 0.2 } }),
		{ workflowId: 'wf-a', holdExecutions: true },
	);
	process.stdout.write('ACTIVE\n');
	for (;;) {
		const [[item]] = (await trigger.nextEmit(600_000)) as [[{ json: { jobId: string } }]];
		process.stdout.write(`EMITTED ${item.json.jobId}\n`);
	}
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
