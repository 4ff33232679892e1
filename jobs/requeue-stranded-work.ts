import { requeueStrandedRuns } from '../src/agents/index.ts';
import { requeueStrandedWorkJob } from '../src/jobs/contracts.ts';
import { requeueStrandedScrapeRuns } from '../src/scraping/index.ts';
import { requeueStrandedValidationJobs } from '../src/validation/index.ts';
import { handleJob } from './job-handler.ts';

/**
 * Agent runs, scrape runs and validation jobs recorded by a request whose process died before queuing their job:
 * queued now, once each (the request's client got no answer, but the work shows as queued, or an agent run resumed
 * by a reply as running, and would stay so).
 */
export const requeueStrandedWorkHandler = handleJob(requeueStrandedWorkJob, {
  handle: async () => {
    await requeueStrandedRuns();
    await requeueStrandedScrapeRuns();
    await requeueStrandedValidationJobs();
  },
});
