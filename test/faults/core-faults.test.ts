/**
 * The fault matrix through the client core on its axios transport, over real HTTP against the
 * emulator's fault injection: three concurrent jobs per scenario, each delivered (or reported)
 * exactly once, byte for byte, without the key showing up anywhere.
 */
import { createRenderClient } from '../../core/client';
import { RenderServiceError } from '../../core/errors';
import { defaultSleep } from '../../core/sleep';
import { createAxiosTransport } from '../../core/transports/axios-transport';
import { deepText, SECRET_KEY, type Capture } from '../helpers/fault-capture';
import {
	arm,
	bounded,
	promptsFor,
	SCENARIO_LIMIT_MS,
	SCENARIOS,
	verify,
	type Observed,
	type Scenario,
} from '../helpers/fault-matrix';
import { faultSuite, withScenario } from '../helpers/fault-suite';
import { request } from '../integration/core-harness';

jest.setTimeout(30_000);

const suite = faultSuite('Fault matrix: client core (axios transport)');

/** Every delay the core asked for in the current scenario, in ms (really slept). */
let sleeps: number[] = [];

function makeClient(log: Capture) {
	return createRenderClient({
		baseUrl: suite.fault.emulator.baseUrl,
		asyncUrl: suite.fault.emulator.asyncUrl,
		transport: createAxiosTransport({ apiKey: SECRET_KEY }),
		secrets: [SECRET_KEY],
		cacheIdentity: 'fault-matrix',
		sleep: async (ms, signal) => {
			sleeps.push(ms);
			await defaultSleep(ms, signal);
		},
		// Short enough that a silent stream is given up on within the scenario.
		sseIdleMs: 300,
		logger: { debug: (m) => log.add(m), warn: (m) => log.add(m) },
	});
}

async function runCore(scenario: Scenario): Promise<Observed> {
	const client = makeClient(suite.capture);
	const observed: Observed = { delivered: [], failed: [], timedOut: [] };
	await Promise.all(
		promptsFor(scenario).map(async (prompt) => {
			let jobId: string | undefined;
			try {
				const outcome = await client.generate(request({ prompt }), {
					mode: scenario.waitMode,
					timeoutMs: (scenario.timeoutSeconds ?? 10) * 1000,
					onTimeout: scenario.onTimeout,
					onSubmitted: (job) => (jobId = job.jobId),
				});
				if (outcome.kind === 'timed_out') {
					observed.timedOut.push({ jobId: outcome.job.jobId, cancelled: outcome.cancelled });
					return;
				}
				const chunks: Buffer[] = [];
				for await (const chunk of outcome.file.stream) chunks.push(chunk);
				observed.delivered.push({ jobId: outcome.job.jobId, data: Buffer.concat(chunks) });
			} catch (error) {
				suite.capture.add(error, (error as RenderServiceError).hint);
				const id = error instanceof RenderServiceError ? (error.jobId ?? jobId) : jobId;
				observed.failed.push({ jobId: id, message: String((error as Error).message) });
			}
		}),
	);
	return observed;
}

describe('fault matrix through the core', () => {
	it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
		sleeps = [];
		await withScenario(suite.fault, scenario, async () => {
			const observed = await bounded(runCore(scenario), SCENARIO_LIMIT_MS, scenario.name);
			verify(suite.table, 'core', scenario, suite.fault, observed, suite.capture.texts);
			if (scenario.freshCatalogue) expect(suite.fault.emulator.counters().requests.models).toBe(3);
			// The server's Retry-After (1 s) is what the client waited, not its own backoff.
			if (scenario.faults?.queue?.rateLimitBurst || scenario.faults?.job?.rateLimitBurst) {
				expect(sleeps).toContain(1000);
			}
		});
	});

	it('never lets a 5xx burst on POST /queue create a second job (idempotent resend)', async () => {
		arm(suite.fault, { faults: { queue: { errorBurst: 3 } } });
		const client = makeClient(suite.capture);
		const job = await bounded(
			client.submit(request({ prompt: 'one job only' })),
			SCENARIO_LIMIT_MS,
			'submit',
		);
		expect(suite.fault.emulator.counters()).toMatchObject({ jobsCreated: 1 });
		expect(suite.fault.emulator.counters().requests.queue).toBe(4);
		expect(deepText(job)).not.toContain(SECRET_KEY);
	});
});
