// n8n-node lint runs `eslint .` with this file. n8n's community-node rules apply to the
// n8n surface (nodes/, credentials/, package.json); typescript-eslint covers the rest.
import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

const n8nFiles = ['nodes/**/*.ts', 'credentials/**/*.ts'];

const n8nScoped = configWithoutCloudSupport.map((block) =>
	Array.isArray(block.files) && block.files.includes('**/*.ts') ? { ...block, files: n8nFiles } : block,
);

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**', 'demo-output/**', 'bench/results/**'] },
	...n8nScoped,
	{
		files: ['core/**/*.ts', 'emulator/**/*.ts', 'node-red/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		extends: [tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
);
