import { createHash } from 'node:crypto';
import type { ImapFlow } from 'imapflow';
import { imapClientFor, type ServerLogin } from '../inboxes/imap-client.ts';

/**
 * IMAP sessions kept open between an inbox's reads, one per inbox, in this
 * process. Logging in for every check costs a connection, TLS, a login and
 * a SELECT each time (the server starts a new session process for each):
 * tens of milliseconds per inbox here, and a login rate a provider may
 * refuse. A kept session is reused while its login and mailbox are the same
 * and the server has not closed it.
 */

const timeouts = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

export interface Session {
  key: string;
  client: ImapFlow;
  /** Taken from the last read, not opened for this one. */
  reused: boolean;
  /** Logged out on purpose (the inbox is no longer read, the process stops): a command failing now was cut short. */
  ended: boolean;
}

const sessions = new Map<string, Session>();

const keyOf = (login: ServerLogin, mailbox: string) =>
  createHash('sha256')
    .update(JSON.stringify([login.host, login.port, login.secure, login.user, login.password, mailbox]))
    .digest('base64url');

/** A session logged out on purpose while it connected or was used: the read was cut short, the mailbox did not fail. */
export class SessionEnded extends Error {}

/**
 * The inbox's kept session when it is still usable for this login and
 * mailbox, else a new one, connected and logged in (kept from the start, so
 * a stop ends one still connecting too).
 */
export async function sessionFor(inboxId: string, login: ServerLogin, mailbox: string): Promise<Session> {
  const key = keyOf(login, mailbox);
  const kept = sessions.get(inboxId);
  if (kept?.key === key && kept.client.usable) return Object.assign(kept, { reused: true });
  endSession(inboxId);
  const client = await imapClientFor(login, timeouts);
  const session: Session = { key, client, reused: false, ended: false };
  sessions.set(inboxId, session);
  client.once('close', () => {
    if (sessions.get(inboxId) === session) sessions.delete(inboxId);
  });
  try {
    await client.connect();
  } catch (error) {
    if (session.ended) throw new SessionEnded('the IMAP session was ended while it connected');
    if (sessions.get(inboxId) === session) sessions.delete(inboxId);
    client.close();
    throw error;
  }
  return session;
}

const end = (session: Session) => {
  session.ended = true;
  return session.client.logout().catch(() => session.client.close());
};

/** Logs the inbox's session out (a read that failed on it, a removed inbox), without waiting. */
export function endSession(inboxId: string): void {
  const session = sessions.get(inboxId);
  if (!session) return;
  sessions.delete(inboxId);
  void end(session);
}

/** Ends the sessions of inboxes no longer read (deleted, or their IMAP settings removed). */
export function endSessionsExcept(inboxIds: Set<string>): void {
  for (const inboxId of [...sessions.keys()]) if (!inboxIds.has(inboxId)) endSession(inboxId);
}

/** Logs every session out (the process stops reading mailboxes). */
export async function endAllSessions(): Promise<void> {
  const ending = [...sessions.values()];
  sessions.clear();
  await Promise.all(ending.map(end));
}
