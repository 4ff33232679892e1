import { z } from 'zod';
import { settings } from '../src/config.ts';
import { executeRun, maxRunAttempts } from '../src/scraping/run-executor.ts';
import { scrapeRunJob } from '../src/scraping/scrape-runs.service.ts';
import { defineJob } from './job-definition.ts';

export const scrapeRunJobDefinition = defineJob({
  name: scrapeRunJob,
  payload: z.object({ runId: z.uuid() }),
  retries: maxRunAttempts - 1,
  lockLifetimeMs: () => settings().SCRAPE_LOCK_LIFETIME_MS,
  handle: ({ runId }) => executeRun(runId),
});
