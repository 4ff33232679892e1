import { requeueStrandedRuns } from '../../agents/index.ts';
import { handleJob } from '../../jobs/job-handler.ts';
import { requeueStrandedCsvImports } from '../../leads/index.ts';
import { requeueStrandedScrapeRuns } from '../../scraping/index.ts';
import { requeueStrandedValidationJobs } from '../../validation/index.ts';
import { strandedWorkRequeueJob } from './stranded-work-requeue.job.ts';

/**
 * Agent runs, scrape runs, validation jobs and CSV imports recorded by a request whose process died before queuing their job:
 * queued now, once each (the request's client got no answer, but the work shows as queued, or an agent run resumed
 * by a reply as running, and would stay so).
 */
export const strandedWorkRequeueHandler = handleJob(strandedWorkRequeueJob, {
  handle: async () => {
    await requeueStrandedRuns();
    await requeueStrandedScrapeRuns();
    await requeueStrandedValidationJobs();
    await requeueStrandedCsvImports();
  },
});
