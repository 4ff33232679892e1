import { handleJob } from '../../jobs/job-handler.ts';
import { executeRun } from '../run-executor.ts';
import { giveUpRun } from '../run-lifecycle.ts';
import { scrapeRunJob } from './scrape-run.job.ts';

/** Crawls one run; three starts at most (a dead worker's included), then the run fails. */
export const scrapeRunHandler = handleJob(scrapeRunJob, {
  handle: ({ runId, workspaceId }) => executeRun(runId, workspaceId),
  giveUp: ({ runId }, reason) => giveUpRun(runId, reason),
});
