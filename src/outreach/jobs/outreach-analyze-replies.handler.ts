import { handleJob } from '../../jobs/job-handler.ts';
import { analyzePendingReplies } from '../replies/analysis.service.ts';
import { outreachAnalyzeRepliesJob } from './outreach-analyze-replies.job.ts';

/** Sentiment for stored replies, apart from reading mailboxes so a slow model never holds ingestion up. */
export const outreachAnalyzeRepliesHandler = handleJob(outreachAnalyzeRepliesJob, {
  async handle() {
    await analyzePendingReplies();
  },
});
