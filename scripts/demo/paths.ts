/** Folders the demo, editors and screenshot scripts share. */
import { join } from 'node:path';

/**
 * The repository root. These scripts run from scripts/<area>/ (tests, typecheck) or bundled
 * into .cache/scripts/ (scripts/demo/launch.mjs): two folders deep either way.
 */
export const REPO_ROOT = join(__dirname, '..', '..');
export const DIST = join(REPO_ROOT, 'dist');
export const FIXTURES = join(REPO_ROOT, 'scripts', 'demo', 'fixtures');
export const N8N_WORKFLOW_FILE = join(FIXTURES, 'n8n-prompts-to-images.json');
export const NODE_RED_FLOW_FILE = join(FIXTURES, 'node-red-prompts-to-files.json');
export const PACKAGE_NAME = '@render-service/n8n-nodes-render';
