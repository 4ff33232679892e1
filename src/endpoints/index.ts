/** The endpoints domain's front door: the result cache (the worker), the endpoints listed in OpenAPI, and whether a scraper is in use. */
export { cacheCompletedRun, endpointCacheRetention } from './endpoint-cache.ts';
export { endpointSlugsUsingScraper } from './endpoint-usage.ts';
export { listEndpoints } from './endpoints.service.ts';
