import { executeRun, giveUpRun } from '../src/scraping/index.ts';
import { scrapeRunJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Crawls one run; three starts at most (a dead worker's included), then the run fails. */
export const scrapeRunHandler = handleJob(scrapeRunJob, {
  handle: ({ runId, workspaceId }) => executeRun(runId, workspaceId),
  giveUp: ({ runId }, reason) => giveUpRun(runId, reason),
});
