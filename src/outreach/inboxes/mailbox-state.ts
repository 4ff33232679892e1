import { MailboxCursor, type MailboxCursorDoc } from './mailbox-cursor.model.ts';

/** Where reading an inbox stands, for its listing: the last check and its error. */
export async function mailboxState(inboxId: string): Promise<{ checkedAt: Date | null; error: string | null }> {
  const cursor = await MailboxCursor.findById(inboxId).lean<MailboxCursorDoc>();
  return { checkedAt: cursor?.checkedAt ?? null, error: cursor?.error ?? null };
}
