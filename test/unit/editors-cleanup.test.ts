/** The stop sequence of `npm run editors`: what started last stops first, nothing is missed. */
import { Cleanup } from '../../scripts/editors/cleanup';

test('runs the steps newest first, once', async () => {
	const cleanup = new Cleanup();
	const order: string[] = [];
	cleanup.add(async () => order.push('temp folder'));
	cleanup.add(async () => order.push('emulator'));
	cleanup.add(async () => order.push('n8n'));
	await Promise.all([cleanup.run(), cleanup.run()]);
	expect(order).toEqual(['n8n', 'emulator', 'temp folder']);
});

test('a failing step does not stop the others', async () => {
	const cleanup = new Cleanup();
	const order: string[] = [];
	cleanup.add(async () => order.push('emulator'));
	cleanup.add(async () => {
		throw new Error('n8n was already gone');
	});
	await cleanup.run();
	expect(order).toEqual(['emulator']);
});

test('a process registered while stopping is stopped too', async () => {
	const cleanup = new Cleanup();
	const stopped: string[] = [];
	let release: () => void = () => {};
	cleanup.add(() => new Promise<void>((resolve) => (release = resolve)));
	const running = cleanup.run();
	cleanup.add(async () => stopped.push('late n8n'));
	release();
	await running;
	expect(stopped).toEqual(['late n8n']);
});
