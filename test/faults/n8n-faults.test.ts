/**
 * The fault matrix through the n8n nodes in n8n's real execution engine (in process, real
 * HTTP helpers), plus what only n8n has: an execution cancelled mid-wait and the Render
 * Service Trigger deactivated and activated again while its jobs are pending. The real-process
 * restart of n8n is covered by test/e2e/n8n-e2e.test.ts ("pending across a restart").
 */
import { join } from 'node:path';

import type { INodeExecutionData } from 'n8n-workflow';

import { deepText } from '../helpers/fault-capture';
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
import { until } from '../helpers/until';
import { chain, node, type ActiveTrigger } from '../helpers/n8n-engine';
import {
	binaryBytes,
	createRenderEngine,
	generateParams,
	renderNode,
	TYPES,
} from '../helpers/n8n-render';
import { tempN8nUserFolder } from '../helpers/n8n-user-folder';

jest.setTimeout(30_000);

const suite = faultSuite('Fault matrix: n8n nodes (in-process engine)');
const userFolder = tempN8nUserFolder('n8n-faults-', 'all');
const savedLedgerDir = process.env.RENDER_SERVICE_LEDGER_DIR;

beforeAll(() => {
	process.env.RENDER_SERVICE_LEDGER_DIR = join(userFolder.path, 'ledger');
});
afterAll(() => {
	if (savedLedgerDir === undefined) delete process.env.RENDER_SERVICE_LEDGER_DIR;
	else process.env.RENDER_SERVICE_LEDGER_DIR = savedLedgerDir;
});

function inputFor(scenario: Scenario): INodeExecutionData[] {
	return promptsFor(scenario).map((prompt) => ({ json: { prompt } }));
}

async function runGenerate(
	parameters: Record<string, unknown>,
	input: INodeExecutionData[],
	onStarted?: (cancel: () => void) => void,
	continueOnFail = true,
) {
	const engine = createRenderEngine(suite.fault.emulator);
	const result = await engine.run({
		nodes: [
			node('Start', TYPES.manualTrigger),
			renderNode(
				'Generate',
				TYPES.generateMedia,
				generateParams({ prompt: '={{ $json.prompt }}', ...parameters } as never),
				continueOnFail ? { onError: 'continueRegularOutput' } : {},
			),
		],
		connections: chain('Start', 'Generate'),
		startNode: 'Generate',
		input,
		onStarted,
	});
	// Everything n8n keeps of the run: outputs, errors, execution data.
	suite.capture.add(result.run);
	return result;
}

function observe(items: INodeExecutionData[]): Observed {
	const observed: Observed = { delivered: [], failed: [], timedOut: [] };
	for (const item of items) {
		const jobId = typeof item.json.jobId === 'string' ? item.json.jobId : undefined;
		if (item.binary?.data && jobId) observed.delivered.push({ jobId, data: binaryBytes(item) });
		else if (item.json.status === 'timed_out' && jobId)
			observed.timedOut.push({ jobId, cancelled: item.json.cancelled === true });
		else observed.failed.push({ jobId, message: String(item.json.error ?? deepText(item.json)) });
	}
	return observed;
}

describe('fault matrix through n8n Generate Media', () => {
	const scenarios = SCENARIOS.filter((s) => !s.coreOnly);
	it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
		await withScenario(suite.fault, scenario, async () => {
			const parameters: Record<string, unknown> = { waitStrategy: scenario.waitMode };
			if (scenario.timeoutSeconds) parameters.timeoutSeconds = scenario.timeoutSeconds;
			if (scenario.onTimeout) parameters.onTimeout = scenario.onTimeout;
			const result = await bounded(
				runGenerate(parameters, inputFor(scenario)),
				SCENARIO_LIMIT_MS,
				scenario.name,
			);
			const items = result.output('Generate');
			// One output item per input item, in order, each paired with its input.
			expect(items.map((i) => i.pairedItem)).toEqual(items.map((_i, item) => ({ item })));
			verify(suite.table, 'n8n', scenario, suite.fault, observe(items), suite.capture.texts);
		});
	});

	it('execution cancelled in n8n mid-wait: stops at once, nothing more is sent', async () => {
		const scenario: Scenario = {
			name: 'execution cancelled mid-wait',
			timing: { queueMs: 20, runMs: 60_000 },
			waitMode: 'auto',
			expect: 'failed',
		};
		arm(suite.fault, scenario);
		const input = inputFor(scenario);
		const result = await bounded(
			runGenerate(
				{ timeoutSeconds: 600 },
				input,
				(cancel) => {
					const check = setInterval(() => {
						if (suite.fault.emulator.counters().jobsCreated < input.length) return;
						clearInterval(check);
						setTimeout(cancel, 50);
					}, 10);
				},
				false,
			),
			SCENARIO_LIMIT_MS,
			scenario.name,
		);
		const counters = suite.fault.emulator.counters();
		const jobs = suite.fault.scenarioJobs();
		const leaks = suite.capture.leaks() + counters.cdnAuthorizationHeaders;
		const ok =
			result.run.status === 'canceled' &&
			counters.jobsCreated === input.length &&
			result.output('Generate').length === 0 &&
			leaks === 0;
		suite.table.add(
			{
				engine: 'n8n',
				scenario: scenario.name,
				jobs: jobs.length,
				delivered: 0,
				duplicates: 0,
				leaks,
			},
			ok,
		);
		expect(result.run.status).toBe('canceled');
		expect(counters.jobsCreated).toBe(input.length);
		expect(result.output('Generate')).toEqual([]);
		// The jobs were left running on the service (not cancelled behind the user's back).
		for (const job of jobs) expect(['queued', 'running']).toContain(job.status);
		expect(counters.requests.cdn).toBe(0);
		expect(leaks).toBe(0);
	});
});

describe('Render Service Trigger restarted with pending jobs', () => {
	const triggerNode = renderNode('Trigger', TYPES.trigger, {
		waitStrategy: 'auto',
		options: { rescanSeconds: 0.2 },
	});
	const active: ActiveTrigger[] = [];
	afterEach(async () => {
		for (const trigger of active.splice(0)) await trigger.close();
	});

	async function activate(): Promise<ActiveTrigger> {
		const engine = createRenderEngine(suite.fault.emulator);
		const trigger = await engine.activateTrigger(triggerNode, { workflowId: 'wf-faults' });
		active.push(trigger);
		return trigger;
	}

	it('each pending job fires exactly once after the restart, never again', async () => {
		const scenario: Scenario = {
			name: 'trigger restart with pending jobs',
			timing: { queueMs: 20, runMs: 2000 },
			waitMode: 'auto',
			expect: 'delivered',
		};
		arm(suite.fault, scenario);
		const submitted = await runGenerate({ mode: 'submit' }, inputFor(scenario));
		const jobIds = submitted.output('Generate').map((i) => String(i.json.jobId));
		expect(jobIds).toHaveLength(3);

		// Active while the jobs run, then deactivated before any completes (n8n stopping).
		const first = await activate();
		await new Promise((r) => setTimeout(r, 300));
		await first.close();
		active.splice(active.indexOf(first), 1);
		expect(first.emitted).toEqual([]);

		// Activated again (n8n started again): every pending job fires once.
		const second = await activate();
		await until(() => second.emitted.length >= 3, SCENARIO_LIMIT_MS, 'three trigger events');
		// A few more scans: nothing fires twice.
		await new Promise((r) => setTimeout(r, 700));
		await second.close();
		active.splice(active.indexOf(second), 1);

		// A third activation finds nothing left to deliver.
		const third = await activate();
		await new Promise((r) => setTimeout(r, 700));

		const items = [...first.emitted, ...second.emitted, ...third.emitted].flatMap(
			(e) => e[0] ?? [],
		);
		suite.capture.add(
			items.map((i) => i.json),
			first.errors,
			second.errors,
			third.errors,
		);
		const observed: Observed = {
			delivered: items.map((i) => ({ jobId: String(i.json.jobId), data: binaryBytes(i) })),
			failed: [],
			timedOut: [],
		};
		expect(observed.delivered.map((d) => d.jobId).sort()).toEqual([...jobIds].sort());
		verify(suite.table, 'n8n', scenario, suite.fault, observed, suite.capture.texts);
	});
});
