import { z } from 'zod';
import { settings } from '../src/config.ts';
import { executeRun } from '../src/scraping/run-executor.ts';
import { giveUpRun } from '../src/scraping/run-lifecycle.ts';
import { defineJob } from './job-definition.ts';

/** Crawls one run; three starts at most (a dead worker's included), then the run fails. */
export const scrapeRunJob = defineJob({
  name: 'scrape.run',
  payload: z.object({ runId: z.uuid(), workspaceId: z.string().min(1) }),
  retries: 2,
  lockLifetimeMs: () => settings().SCRAPE_LOCK_LIFETIME_MS,
  handle: ({ runId, workspaceId }) => executeRun(runId, workspaceId),
  giveUp: ({ runId }, reason) => giveUpRun(runId, reason),
});
