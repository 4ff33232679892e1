import type { ImapFlow } from 'imapflow';
import { nowMs } from '../../clock.ts';
import { type InboxToRead } from '../inboxes/inbox-reading.service.ts';
import { endSession, SessionEnded, sessionFor, type Session } from './imap-sessions.ts';
import { MailboxCursor, type MailboxCursorDoc } from '../inboxes/mailbox-cursor.model.ts';
import { ingestMessage } from './replies.service.ts';

/** After a failed check, the next waits 1, 2, 4 … minutes, at most an hour. */
const retryDelayMs = (failures: number) => Math.min(60, 2 ** (failures - 1)) * 60_000;

export interface MailboxReport {
  stored: number;
  /** Messages read again that were stored before (a crash between storing one and moving the cursor). */
  alreadyStored: number;
  /** Messages passed over because they could not be parsed. */
  unreadable?: number;
  /** Not read: waiting out its backoff, or the process was stopping its reads. */
  skipped?: 'backing_off' | 'stopping';
  error?: string;
}

const saveCursor = (inboxId: string, fields: Partial<MailboxCursorDoc>) =>
  MailboxCursor.updateOne({ _id: inboxId }, { $set: fields }, { upsert: true });

type Position = Pick<MailboxCursorDoc, 'uidValidity' | 'lastUid'>;

/**
 * Takes the messages past the cursor from an open session, each stored
 * before the cursor moves past it; `position` follows the cursor. A kept
 * session is asked for news first (NOOP): its mailbox stays selected between
 * reads, and the server tells it of new mail on a command.
 */
async function takeNew(
  session: Session,
  inbox: InboxToRead,
  cursor: MailboxCursorDoc | null,
  report: MailboxReport,
  position: { at?: Position },
): Promise<void> {
  const { mailbox } = inbox;
  const client: ImapFlow = session.client;
  const lock = await client.getMailboxLock(mailbox);
  try {
    if (session.reused) await client.noop();
    const validity = String((client.mailbox as { uidValidity: bigint | number }).uidValidity);
    if (position.at?.uidValidity !== validity) {
      const sameMailbox = cursor?.uidValidity === validity && cursor.mailbox === mailbox;
      position.at = { uidValidity: validity, lastUid: sameMailbox ? cursor.lastUid : 0 };
    }
    const at = position.at;
    const lastUid = at.lastUid;
    const found = (await client.search({ uid: `${lastUid + 1}:*` }, { uid: true })) || [];
    for (const uid of found.filter((n) => n > lastUid).sort((a, b) => a - b)) {
      const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
      if (message && message.source) {
        const outcome = await ingestMessage(inbox, message.source, `${validity}:${uid}`);
        if (outcome === 'stored') report.stored++;
        if (outcome === 'already_stored') report.alreadyStored++;
        if (outcome === 'unreadable') report.unreadable = (report.unreadable ?? 0) + 1;
      }
      at.lastUid = uid;
      await saveCursor(inbox.id, { mailbox, ...at });
    }
  } finally {
    lock.release();
  }
}

/**
 * Reads the messages that arrived in an inbox's mailbox since the last
 * check, each once: the cursor (UIDVALIDITY and the last UID taken) moves
 * past a message only after it is stored, so a crash reads it again (and
 * its stored copy is found), never skips it. A changed UIDVALIDITY (the
 * mailbox was rebuilt) starts over from its first message; messages already
 * stored are recognized by their ids. The IMAP session is kept for the next
 * check (imap-sessions.ts); one the server closed since is replaced once. A
 * mailbox that cannot be read is retried later with backoff, and the error
 * shows on the inbox.
 */
export async function readMailbox(inbox: InboxToRead): Promise<MailboxReport> {
  const cursor = await MailboxCursor.findById(inbox.id).lean<MailboxCursorDoc>();
  if (cursor?.nextCheckAt && cursor.nextCheckAt.getTime() > nowMs()) return { stored: 0, alreadyStored: 0, skipped: 'backing_off' };
  const report: MailboxReport = { stored: 0, alreadyStored: 0 };
  const { mailbox } = inbox;
  // Where the read got to: written after each message taken, and with the check's outcome at the end.
  const position: { at?: Position } = {};
  // The process logged the session out while this read used it (it stops reading): no failure of the mailbox's.
  let cutShort = false;
  const attempt = async (current: Session) => {
    try {
      await takeNew(current, inbox, cursor, report, position);
    } catch (error) {
      cutShort = current.ended;
      endSession(inbox.id);
      throw error;
    }
  };
  try {
    const login = inbox.imap();
    let session = await sessionFor(inbox.id, login, mailbox);
    try {
      await attempt(session);
    } catch (error) {
      if (!session.reused || cutShort) throw error;
      // A kept session the server has closed since (an idle timeout, a restart): once more on a new one.
      session = await sessionFor(inbox.id, login, mailbox);
      await attempt(session);
    }
    await saveCursor(inbox.id, { mailbox, ...position.at, checkedAt: new Date(nowMs()), error: null, failures: 0, nextCheckAt: null });
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error);
    if (cutShort || error instanceof SessionEnded) return report;
    const failures = (cursor?.failures ?? 0) + 1;
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
