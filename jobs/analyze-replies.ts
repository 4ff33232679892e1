import { analyzePendingReplies } from '../src/outreach/index.ts';
import { analyzeRepliesJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Sentiment for stored replies, apart from reading mailboxes so a slow model never holds ingestion up. */
export const analyzeRepliesHandler = handleJob(analyzeRepliesJob, {
  async handle() {
    await analyzePendingReplies();
  },
});
