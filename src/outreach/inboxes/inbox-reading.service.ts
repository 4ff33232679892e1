import { openSecret } from '../../secrets/secret-box.ts';
import type { ServerLogin } from './imap-client.ts';
import { Inbox, type InboxDoc } from './inbox.model.ts';

/** What reading an inbox's replies needs: who it is, its sender address (its own copies are no replies), its mailbox and IMAP login. */
export interface InboxToRead {
  id: string;
  workspaceId: string;
  brandId: string;
  from: string;
  mailbox: string;
  /** The IMAP server's host name (reads of one server are limited). */
  imapHost: string;
  /** The login, its password opened now: a password that cannot be opened throws for this inbox alone. */
  imap(): ServerLogin;
}

/** Every inbox with IMAP settings, in every workspace (inboxes are few: the collection is read whole). */
export async function inboxesToRead(): Promise<InboxToRead[]> {
  const docs = await Inbox.find({ imap: { $ne: null } }).lean<InboxDoc[]>();
  return docs.map((doc) => ({
    id: doc._id,
    workspaceId: doc.workspaceId,
    brandId: doc.brandId,
    from: doc.from,
    mailbox: doc.imap!.mailbox,
    imapHost: doc.imap!.host,
    imap: () => ({
      host: doc.imap!.host,
      port: doc.imap!.port,
      secure: doc.imap!.secure,
      user: doc.imap!.user,
      password: openSecret(doc.imap!.passwordSealed),
    }),
  }));
}
