import { nowMs } from '../../clock.ts';
import { imapClientFor } from '../inboxes/imap-client.ts';
import { type InboxToRead } from '../inboxes/inbox-reading.service.ts';
import { MailboxCursor, type MailboxCursorDoc } from './reply.model.ts';
import { ingestMessage } from './replies.service.ts';

const timeouts = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };
/** After a failed check, the next waits 1, 2, 4 … minutes, at most an hour. */
const retryDelayMs = (failures: number) => Math.min(60, 2 ** (failures - 1)) * 60_000;

export interface MailboxReport {
  stored: number;
  /** Messages read again that were stored before (a crash between storing one and moving the cursor). */
  alreadyStored: number;
  /** Messages passed over because they could not be parsed. */
  unreadable?: number;
  skipped?: 'backing_off';
  error?: string;
}

const saveCursor = (inboxId: string, fields: Partial<MailboxCursorDoc>) =>
  MailboxCursor.updateOne({ _id: inboxId }, { $set: fields }, { upsert: true });

/**
 * Reads the messages that arrived in an inbox's mailbox since the last
 * check, each once: the cursor (UIDVALIDITY and the last UID taken) moves
 * past a message only after it is stored, so a crash reads it again (and
 * its stored copy is found), never skips it. A changed UIDVALIDITY (the
 * mailbox was rebuilt) starts over from its first message; messages already
 * stored are recognized by their ids. A mailbox that cannot be read is
 * retried later with backoff, and the error shows on the inbox.
 */
export async function readMailbox(inbox: InboxToRead): Promise<MailboxReport> {
  const cursor = await MailboxCursor.findById(inbox.id).lean<MailboxCursorDoc>();
  if (cursor?.nextCheckAt && cursor.nextCheckAt.getTime() > nowMs()) return { stored: 0, alreadyStored: 0, skipped: 'backing_off' };
  const report: MailboxReport = { stored: 0, alreadyStored: 0 };
  const { mailbox } = inbox;
  // Where the read got to: written after each message taken, and with the check's outcome at the end.
  let position: Pick<MailboxCursorDoc, 'uidValidity' | 'lastUid'> | undefined;
  try {
    const client = await imapClientFor(inbox.imap(), timeouts);
    await client.connect();
    try {
      const lock = await client.getMailboxLock(mailbox);
      try {
        const opened = client.mailbox as { uidValidity: bigint | number };
        const validity = String(opened.uidValidity);
        const sameMailbox = cursor?.uidValidity === validity && cursor.mailbox === mailbox;
        position = { uidValidity: validity, lastUid: sameMailbox ? cursor.lastUid : 0 };
        const lastUid = position.lastUid;
        const found = (await client.search({ uid: `${lastUid + 1}:*` }, { uid: true })) || [];
        for (const uid of found.filter((n) => n > lastUid).sort((a, b) => a - b)) {
          const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
          if (message && message.source) {
            const outcome = await ingestMessage(inbox, message.source, `${validity}:${uid}`);
            if (outcome === 'stored') report.stored++;
            if (outcome === 'already_stored') report.alreadyStored++;
            if (outcome === 'unreadable') report.unreadable = (report.unreadable ?? 0) + 1;
          }
          position.lastUid = uid;
          await saveCursor(inbox.id, { mailbox, ...position });
        }
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
    await saveCursor(inbox.id, { mailbox, ...position, checkedAt: new Date(nowMs()), error: null, failures: 0, nextCheckAt: null });
  } catch (error) {
    const failures = (cursor?.failures ?? 0) + 1;
    report.error = error instanceof Error ? error.message : String(error);
    await saveCursor(inbox.id, {
      mailbox,
      checkedAt: new Date(nowMs()),
      error: report.error,
      failures,
      nextCheckAt: new Date(nowMs() + retryDelayMs(failures)),
    });
  }
  return report;
}
