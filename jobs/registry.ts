import type { JobDefinition } from './job-definition.ts';
import { expireEndpointCacheJob } from './expire-endpoint-cache.ts';
import { pruneRateLimitsJob } from './prune-rate-limits.ts';
import { scrapeRunJobDefinition } from './scrape-run.ts';

/** Every background job the worker runs. */
export const jobRegistry: JobDefinition[] = [pruneRateLimitsJob, scrapeRunJobDefinition, expireEndpointCacheJob];
