import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Crawls one scrape run. */
export const scrapeRunJob = defineJobContract({
  name: 'scrape.run',
  payload: z.object({ runId: z.uuid(), workspaceId: z.string().min(1) }),
  retries: 2,
  lockLifetimeMs: () => settings().SCRAPE_LOCK_LIFETIME_MS,
});
