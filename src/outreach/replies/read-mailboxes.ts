import { log } from '../../logger.ts';
import { createHostSlots } from '../../net/host-slots.ts';
import { settings } from '../../config.ts';
import { inboxesToRead, type InboxToRead } from '../inboxes/inbox-reading.service.ts';
import { endAllSessions, endSessionsExcept } from './imap-sessions.ts';
import { readMailbox, type MailboxReport } from './mailbox-reader.ts';

/** Reads under way in this process, by inbox id: an inbox is read by one read at a time. */
const underWay = new Map<string, Promise<MailboxReport>>();
/** Reads of one IMAP server at once (as many as the worker's jobs): servers limit a client's connections. */
const imapServerSlot = createHostSlots(() => settings().WORKER_CONCURRENCY);
/** Set while this process stops reading: reads still waiting for a slot do not start. */
let stopping = false;

/** The inbox's read under way, or a new one once its server has a free slot; it never throws (a failure is its report's). */
function readOnce(inbox: InboxToRead): Promise<MailboxReport> {
  let read = underWay.get(inbox.id);
  if (read) return read;
  read = (async () => {
    const release = await imapServerSlot(inbox.imapHost);
    try {
      if (stopping) return { stored: 0, alreadyStored: 0, skipped: 'stopping' as const };
      return await readMailbox(inbox);
    } catch (error) {
      // Even recording the failure failed (the store is away): the other inboxes are still read.
      return { stored: 0, alreadyStored: 0, error: error instanceof Error ? error.message : String(error) };
    } finally {
      release();
    }
  })().then((report) => {
    underWay.delete(inbox.id);
    if (report.error) log.warn("an inbox's mailbox could not be read", { inboxId: inbox.id, error: report.error });
    return report;
  });
  underWay.set(inbox.id, read);
  return read;
}

/**
 * Reads every inbox's mailbox that has IMAP settings, side by side (a slow
 * or unreachable server holds up its own inboxes only); what each gave, by
 * inbox id. With `waitMs`, answers after that long at most: the reads still
 * under way go on, and a later call waits for them instead of starting
 * others, so no inbox waits for a pass over every other one before it is
 * read again.
 */
export async function readMailboxes(options: { waitMs?: number } = {}): Promise<Record<string, MailboxReport>> {
  const inboxes = await inboxesToRead();
  endSessionsExcept(new Set(inboxes.map((inbox) => inbox.id)));
  const reports: Record<string, MailboxReport> = {};
  const all = Promise.all(inboxes.map(async (inbox) => void (reports[inbox.id] = await readOnce(inbox))));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, ...(options.waitMs === undefined ? [] : [new Promise((done) => (timer = setTimeout(done, options.waitMs)))])]);
  clearTimeout(timer);
  return reports;
}

/**
 * Stops this process's reads: every kept IMAP session is logged out (a read
 * cut short records no failure, and takes its message again next time), the
 * reads under way are given up to `graceMs` to settle, and sessions a read
 * opened meanwhile are logged out too.
 */
export async function stopReadingMailboxes(graceMs: number): Promise<void> {
  stopping = true;
  try {
    await endAllSessions();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(underWay.values()), new Promise((done) => (timer = setTimeout(done, graceMs)))]);
    clearTimeout(timer);
    await endAllSessions();
  } finally {
    stopping = false;
  }
}
