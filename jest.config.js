/** @type {import('jest').Config} */
const tsJest = ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }];
const common = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': tsJest },
	moduleFileExtensions: ['ts', 'js', 'json'],
};
module.exports = {
	projects: [
		{ ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
		{
			...common,
			displayName: 'integration',
			testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
		},
		{ ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
		{ ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.test.ts'] },
		{ ...common, displayName: 'security', testMatch: ['<rootDir>/test/security/**/*.test.ts'] },
	],
};
