import { TimeoutError } from '../../core/errors';
import { translator } from '../../node-red/lib/i18n';
import { timedOutResult } from '../../node-red/lib/timeout';
import type { WaitSettings } from '../../node-red/lib/wait-settings';

// A host that resolves no key, so the bundled English catalogue answers.
const t = translator({ _: (key: string) => key });

function cancelAfter(timeoutMs: number): unknown {
	const wait: WaitSettings = { waitMode: 'poll', timeoutMs, onTimeout: 'cancel', outputFile: '' };
	const outcome = { jobId: 'job-1', lastStatus: 'running', waitedMs: timeoutMs, cancelled: true };
	try {
		timedOutResult(outcome, wait, {}, {}, t, 'render-generate');
	} catch (error) {
		return error;
	}
	return undefined;
}

describe('render-generate on-timeout "cancel" message', () => {
	it('names the job and a short timeout with its decimal, never "0 s"', () => {
		const error = cancelAfter(500);
		expect(error).toBeInstanceOf(TimeoutError);
		expect((error as Error).message).toBe(
			'Job job-1 did not finish within 0.5 s and was cancelled.',
		);
	});

	it('uses whole seconds for ordinary timeouts', () => {
		expect((cancelAfter(600_000) as Error).message).toBe(
			'Job job-1 did not finish within 600 s and was cancelled.',
		);
	});
});
