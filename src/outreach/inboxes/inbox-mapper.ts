import type { InboxOut } from '../../../schema/outreach/inboxes.ts';
import { mailboxState } from './mailbox-state.ts';
import { inboxFigures } from './inbox-figures.ts';
import type { InboxDoc } from './inbox.model.ts';

type StoredServer = InboxDoc['smtp'];

/** The listing of an inbox: settings without passwords, and figures computed from what it really sent. */
export async function toInbox(doc: InboxDoc): Promise<InboxOut> {
  const server = ({ host, port, secure, user }: StoredServer) => ({ host, port, secure, user });
  return {
    id: doc._id,
    name: doc.name,
    from: doc.from,
    from_name: doc.fromName ?? null,
    brand_id: doc.brandId,
    smtp: server(doc.smtp),
    imap: doc.imap ? { ...server(doc.imap), mailbox: doc.imap.mailbox } : null,
    ...(await readingState(doc)),
    dailyLimit: doc.dailyLimit,
    warmupEnabled: doc.warmupEnabled,
    sendingPausedAt: doc.sendingPausedAt?.toISOString() ?? null,
    sendingPausedReason: doc.sendingPausedReason ?? null,
    ...(await inboxFigures(doc)),
    created_at: doc.createdAt.toISOString(),
  };
}

/** The last read of the inbox's mailbox (replies), by its cursor's primary key. */
async function readingState(doc: InboxDoc) {
  const state = doc.imap ? await mailboxState(doc._id) : { checkedAt: null, error: null };
  return { imapCheckedAt: state.checkedAt?.toISOString() ?? null, imapError: state.error };
}
