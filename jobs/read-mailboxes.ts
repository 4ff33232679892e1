import { readMailboxes } from '../src/outreach/replies/read-mailboxes.ts';
import { readMailboxesJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Replies, bounces and auto-replies: every inbox's mailbox read over IMAP, every MAILBOX_POLL_MS. */
export const readMailboxesHandler = handleJob(readMailboxesJob, {
  async handle() {
    await readMailboxes();
  },
});
