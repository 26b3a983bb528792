/**
 * The per-file set-up every fault-matrix spec shares: one fault emulator for the file, a fresh
 * output capture per test, and the summary table printed once the file is done; plus the
 * per-scenario steps (armed faults, a fresh catalogue, 303 expiry) around each engine's run.
 */
import { clearCatalogueCache } from '../../core/catalogue';
import { captureOutput, type Capture } from './fault-capture';
import {
	arm,
	createTable,
	expireAfterFirst303,
	startFaultEmulator,
	type FaultEmulator,
	type Scenario,
} from './fault-matrix';

export interface FaultSuite {
	readonly table: ReturnType<typeof createTable>;
	/** Set in beforeAll. */
	fault: FaultEmulator;
	/** Set in beforeEach. */
	capture: Capture;
}

/** Registers the file's hooks (top level); a spec's own afterEach declared earlier runs first. */
export function faultSuite(title: string): FaultSuite {
	const suite = { table: createTable(title) } as FaultSuite;
	beforeAll(async () => {
		suite.fault = await startFaultEmulator();
	});
	beforeEach(() => {
		suite.capture = captureOutput();
	});
	afterEach(() => suite.capture.restore());
	afterAll(async () => {
		await suite.fault.emulator.close();
		suite.table.print();
	});
	return suite;
}

/** Runs `body` with `scenario` armed, a fresh catalogue and 303 expiry where it asks for them. */
export async function withScenario<T>(
	fault: FaultEmulator,
	scenario: Scenario,
	body: () => Promise<T>,
): Promise<T> {
	arm(fault, scenario);
	if (scenario.freshCatalogue) clearCatalogueCache();
	const stopExpiring = scenario.expireAfter303 ? expireAfterFirst303(fault) : () => undefined;
	try {
		return await body();
	} finally {
		stopExpiring();
	}
}
