import { z } from 'zod';
import { settings } from '../src/config.ts';
import { readMailboxes } from '../src/outreach/replies/read-mailboxes.ts';
import { defineJob } from './job-definition.ts';

/** Replies, bounces and auto-replies: every inbox's mailbox read over IMAP, every MAILBOX_POLL_MS. */
export const readMailboxesJob = defineJob({
  name: 'outreach.read-mailboxes',
  payload: z.object({}),
  retries: 0,
  every: () => settings().MAILBOX_POLL_MS,
  lockLifetimeMs: () => 10 * 60_000,
  async handle() {
    await readMailboxes();
  },
});
