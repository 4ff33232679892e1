import { log } from '../../logger.ts';
import { inboxesToRead } from '../inboxes/inbox-reading.service.ts';
import { readMailbox, type MailboxReport } from './mailbox-reader.ts';

/** Reads every inbox's mailbox that has IMAP settings, one after another; what each gave, by inbox id. */
export async function readMailboxes(): Promise<Record<string, MailboxReport>> {
  const reports: Record<string, MailboxReport> = {};
  for (const inbox of await inboxesToRead()) {
    try {
      reports[inbox.id] = await readMailbox(inbox);
    } catch (error) {
      // Even recording the failure failed (the store is away): the next inboxes are still tried.
      reports[inbox.id] = { stored: 0, alreadyStored: 0, error: error instanceof Error ? error.message : String(error) };
    }
    if (reports[inbox.id]!.error) log.warn("an inbox's mailbox could not be read", { inboxId: inbox.id, error: reports[inbox.id]!.error });
  }
  return reports;
}
