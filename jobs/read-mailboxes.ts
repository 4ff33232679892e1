import { settings } from '../src/config.ts';
import { readMailboxes, stopReadingMailboxes } from '../src/outreach/index.ts';
import { readMailboxesJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/**
 * Replies, bounces and auto-replies: every inbox's mailbox read over IMAP, every MAILBOX_POLL_MS. A run waits at
 * most one interval for its reads: one still under way (a slow server) goes on, and the next run reads the others.
 */
export const readMailboxesHandler = handleJob(readMailboxesJob, {
  async handle() {
    await readMailboxes({ waitMs: settings().MAILBOX_POLL_MS });
  },
  onWorkerStop: () => stopReadingMailboxes(settings().WORKER_STOP_GRACE_MS),
});
