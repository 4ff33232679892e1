import { z } from 'zod';
import { settings } from '../src/config.ts';
import { analyzePendingReplies } from '../src/outreach/replies/analysis.service.ts';
import { defineJob } from './job-definition.ts';

/** Sentiment for stored replies, apart from reading mailboxes so a slow model never holds ingestion up. */
export const analyzeRepliesJob = defineJob({
  name: 'outreach.analyze-replies',
  payload: z.object({}),
  retries: 0,
  every: () => settings().MAILBOX_POLL_MS,
  lockLifetimeMs: () => 30 * 60_000,
  async handle() {
    await analyzePendingReplies();
  },
});
