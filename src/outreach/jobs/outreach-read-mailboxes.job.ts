import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Reads every inbox's new mail (replies, bounces). */
export const outreachReadMailboxesJob = defineJobContract({
  name: 'outreach.read-mailboxes',
  payload: z.object({}),
  retries: 0,
  everyMs: () => settings().MAILBOX_POLL_MS,
  lockLifetimeMs: () => 10 * 60_000,
});
