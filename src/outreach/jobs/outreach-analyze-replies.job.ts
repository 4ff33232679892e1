import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Classifies the sentiment of replies read since the last pass. */
export const outreachAnalyzeRepliesJob = defineJobContract({
  name: 'outreach.analyze-replies',
  payload: z.object({}),
  retries: 0,
  everyMs: () => settings().MAILBOX_POLL_MS,
  lockLifetimeMs: () => 30 * 60_000,
});
