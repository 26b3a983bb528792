/**
 * The fault matrix through the Node-RED nodes (node-red-node-test-helper, Node-RED 4) over
 * real HTTP, plus what only Node-RED has: the flow redeployed while jobs are waited for, and
 * render-job resuming its pending jobs after that redeploy (each delivered once).
 */
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
import { SECRET_KEY } from '../helpers/fault-capture';
import {
	catchNodes,
	configNode,
	generateNode,
	helper,
	load,
	onTab,
	sleep,
	until,
	type Flow,
	type Msg,
} from '../helpers/node-red-harness';

jest.setTimeout(30_000);

// Before the suite's own afterEach, so the capture still records what unloading prints.
afterEach(async () => {
	await helper.unload();
});
const suite = faultSuite('Fault matrix: Node-RED nodes (node-red-node-test-helper)');

const PROBED = ['gen', 'job', 'out', 'caught'];

/** Records everything the nodes show or log: messages, statuses, warnings, errors, RED.log. */
function watchNodes(ids: string[]): { outputs: Msg[]; caught: Msg[] } {
	const seen = { outputs: [] as Msg[], caught: [] as Msg[] };
	for (const id of ids) {
		const n = helper.getNode(id);
		if (!n) continue;
		for (const call of ['status', 'warn', 'error', 'log', 'debug', 'trace']) {
			n.on(`call:${call}`, (c: { args: unknown[] }) => suite.capture.add(c.args));
		}
		if (id === 'out') n.on('input', (m: Msg) => seen.outputs.push(m));
		if (id === 'caught') n.on('input', (m: Msg) => seen.caught.push(m));
	}
	return seen;
}

function generateFlow(props: Record<string, unknown>, next = 'out'): Flow {
	return [
		configNode(suite.fault.emulator),
		generateNode({ concurrency: 4, wires: [[next]], ...props }),
		{ id: 'out', type: 'helper' },
		...catchNodes(),
	];
}

async function collect(seen: { outputs: Msg[]; caught: Msg[] }, count: number, what: string) {
	await until(() => seen.outputs.length + seen.caught.length >= count, SCENARIO_LIMIT_MS, what);
}

function observe(seen: { outputs: Msg[]; caught: Msg[] }): Observed {
	const observed: Observed = { delivered: [], failed: [], timedOut: [] };
	for (const msg of seen.outputs) {
		const jobId = String(msg.jobId);
		const job = msg.job as { timedOut?: boolean; cancelled?: boolean } | undefined;
		if (job?.timedOut) observed.timedOut.push({ jobId, cancelled: job.cancelled === true });
		else observed.delivered.push({ jobId, data: msg.payload as Buffer });
	}
	for (const msg of seen.caught) {
		const error = msg.error as { message?: string } | undefined;
		observed.failed.push({
			jobId: typeof msg.jobId === 'string' ? msg.jobId : undefined,
			message: String(error?.message ?? deepText(msg)),
		});
	}
	return observed;
}

function scanRedLog(): void {
	const log = (helper as unknown as { log(): { args: unknown[][] } }).log();
	suite.capture.add(log.args);
}

describe('fault matrix through Node-RED render-generate', () => {
	// Node-RED's On Timeout "cancel" cancels the job and then fails the message, so a Catch
	// node sees it (node-red/lib/timeout.ts); n8n and the core hand it back as timed out.
	const scenarios = SCENARIOS.filter((s) => !s.coreOnly).map(
		(s): Scenario => (s.onTimeout === 'cancel' ? { ...s, expect: 'failed' } : s),
	);
	it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
		await withScenario(suite.fault, scenario, async () => {
			await load(
				generateFlow({
					waitMode: scenario.waitMode,
					timeout: scenario.timeoutSeconds ?? 20,
					onTimeout: scenario.onTimeout ?? 'fail',
				}),
				SECRET_KEY,
			);
			const seen = watchNodes(PROBED);
			const prompts = promptsFor(scenario);
			for (const prompt of prompts) helper.getNode('gen').receive({ payload: prompt });
			await collect(seen, prompts.length, scenario.name);
			suite.capture.add(seen.outputs, seen.caught);
			scanRedLog();
			verify(suite.table, 'node-red', scenario, suite.fault, observe(seen), suite.capture.texts);
		});
	});
});

describe('Node-RED flow redeployed mid-wait', () => {
	const credentials = { cfg: { apiKey: SECRET_KEY } };

	async function waitForJobs(count: number): Promise<void> {
		await until(
			() => suite.fault.emulator.counters().jobsCreated >= count,
			SCENARIO_LIMIT_MS,
			`${count} jobs`,
		);
	}

	it('render-generate closed mid-wait: stops at once, sends nothing, reports nothing', async () => {
		const scenario: Scenario = {
			name: 'flow redeployed mid-wait',
			timing: { queueMs: 20, runMs: 60_000 },
			waitMode: 'auto',
			expect: 'failed',
		};
		arm(suite.fault, scenario);
		const flow = onTab(generateFlow({}));
		await load(flow, SECRET_KEY);
		const seen = watchNodes(PROBED);
		const prompts = promptsFor(scenario);
		for (const prompt of prompts) helper.getNode('gen').receive({ payload: prompt });
		await waitForJobs(prompts.length);
		await bounded(helper.setFlows(flow, 'full', credentials), SCENARIO_LIMIT_MS, 'redeploy');
		await sleep(300);
		scanRedLog();
		const counters = suite.fault.emulator.counters();
		const leaks = suite.capture.leaks() + counters.cdnAuthorizationHeaders;
		const ok =
			seen.outputs.length === 0 &&
			seen.caught.length === 0 &&
			counters.jobsCreated === prompts.length &&
			leaks === 0;
		suite.table.add(
			{
				engine: 'node-red',
				scenario: scenario.name,
				jobs: counters.jobsCreated,
				delivered: 0,
				duplicates: 0,
				leaks,
			},
			ok,
		);
		expect(seen.outputs).toEqual([]);
		expect(seen.caught).toEqual([]);
		// Nothing was submitted again by the redeployed node.
		expect(counters.jobsCreated).toBe(prompts.length);
		expect(leaks).toBe(0);
	});

	it('render-job resumes its pending jobs after the redeploy: each delivered once', async () => {
		const scenario: Scenario = {
			name: 'render-job resumes after redeploy',
			timing: { queueMs: 20, runMs: 2000 },
			waitMode: 'auto',
			expect: 'delivered',
		};
		arm(suite.fault, scenario);
		const flow = onTab([
			...generateFlow({ mode: 'emit' }, 'job'),
			{
				id: 'job',
				type: 'render-job',
				config: 'cfg',
				waitMode: 'auto',
				timeout: 20,
				onTimeout: 'fail',
				output: 'buffer',
				concurrency: 4,
				wires: [['out']],
			},
		]);
		await load(flow, SECRET_KEY);
		watchNodes(PROBED);
		const prompts = promptsFor(scenario);
		for (const prompt of prompts) helper.getNode('gen').receive({ payload: prompt });
		await waitForJobs(prompts.length);
		await sleep(150);
		const changed = flow.map((n) => (n.id === 'job' ? { ...n, name: 'renamed' } : n));
		await bounded(helper.setFlows(changed, 'nodes', credentials), SCENARIO_LIMIT_MS, 'redeploy');
		const seen = watchNodes(PROBED);
		await collect(seen, prompts.length, scenario.name);
		// A few more moments: nothing arrives twice.
		await sleep(500);
		suite.capture.add(seen.outputs, seen.caught);
		scanRedLog();
		expect(seen.outputs.every((m) => m.resumed === true)).toBe(true);
		verify(suite.table, 'node-red', scenario, suite.fault, observe(seen), suite.capture.texts);
	});
});
