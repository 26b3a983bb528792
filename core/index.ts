/**
 * Public API of the client core. Imports neither n8n nor Node-RED, nor any runtime package:
 * the axios transport (axios + eventsource) is imported on its own from
 * `core/transports/axios-transport`, so the n8n side never pulls those in.
 */
export * from './api';
export * from './errors';
export * from './transport';
export * from './types';
export { createRenderClient } from './client';
export { createCatalogue, clearCatalogueCache } from './catalogue';
export { validateRequest } from './validation';
export { mapWithConcurrency, DEFAULT_CONCURRENCY, type ItemResult } from './concurrency';
export { SseParser, parseSseStream, sseConnectionFromResponse } from './sse-parser';
export { defaultClock, defaultSleep } from './sleep';
export { normalizeJobStatus } from './job-status';
export { fileNameFor, extensionFor } from './download';
export {
	backoffDelay,
	parseRetryAfter,
	pollDelay,
	retryDelay,
	isTransientStatus,
	ERROR_BACKOFF,
	POLL_SCHEDULE,
	MAX_RETRY_AFTER_MS,
} from './retry';
