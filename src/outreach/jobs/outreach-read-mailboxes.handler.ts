import { settings } from '../../config.ts';
import { handleJob } from '../../jobs/job-handler.ts';
import { readMailboxes, stopReadingMailboxes } from '../replies/read-mailboxes.ts';
import { outreachReadMailboxesJob } from './outreach-read-mailboxes.job.ts';

/**
 * Replies, bounces and auto-replies: every inbox's mailbox read over IMAP, every MAILBOX_POLL_MS. A run waits at
 * most one interval for its reads: one still under way (a slow server) goes on, and the next run reads the others.
 */
export const outreachReadMailboxesHandler = handleJob(outreachReadMailboxesJob, {
  async handle() {
    await readMailboxes({ waitMs: settings().MAILBOX_POLL_MS });
  },
  onWorkerStop: () => stopReadingMailboxes(settings().WORKER_STOP_GRACE_MS),
});
