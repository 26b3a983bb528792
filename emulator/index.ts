/** Entry point of the local Render Service emulator. */
export * from './types';
export { DEMO_API_KEY } from './context';
export { createEmulator } from './server';
export { renderResult, imageSize, type RenderRequest, type RenderOptions } from './render';
export { BUILT_IN_MODELS } from './catalogue';
