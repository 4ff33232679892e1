import { isIP } from 'node:net';
import type { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { fieldError } from '../../errors/field-error.ts';
import { approvedAddresses, isLoopbackAddress } from '../../../outbound/address-guard.ts';
import { addressPolicy } from '../../net/address-policy.ts';
import { tlsTrust } from '../../net/tls-trust.ts';
import { imapClientFor, type ServerLogin } from './imap-client.ts';

export type { ServerLogin };

/** A verification talks to a server the client named: it gives up well before a request would. */
const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 15_000 };

/**
 * Where to connect for `host`: an address the outbound guard approved (a
 * client may not point an inbox at the service's own network), with the
 * host name kept for TLS (SNI and the certificate check). The connection
 * goes to the approved address itself, so a DNS answer that changes between
 * the check and the connection cannot take it elsewhere.
 */
async function approvedTarget(host: string, field: 'smtp' | 'imap') {
  const bare = host.replace(/^\[|\]$/g, '');
  try {
    const [address] = await approvedAddresses(bare, addressPolicy());
    return { address: address!, servername: isIP(bare) ? undefined : bare };
  } catch (error) {
    throw fieldError({ field: `${field}.host`, problem: (error as Error).message });
  }
}

/** The server's own answer where there is one (`535 5.7.8 …`, `[AUTHENTICATIONFAILED] …`), else the connection error's. */
function serverAnswer(error: unknown): string {
  const failure = error as { response?: unknown; responseText?: unknown; serverResponseCode?: unknown; message?: string };
  // imapflow's text of a tagged NO (its `response` is the raw line, tag included); nodemailer's reply line.
  if (typeof failure.responseText === 'string' && failure.responseText) {
    return typeof failure.serverResponseCode === 'string'
      ? `[${failure.serverResponseCode}] ${failure.responseText}`
      : failure.responseText;
  }
  if (typeof failure.response === 'string' && failure.response) return failure.response.split('\n')[0]!;
  return failure.message ?? String(error);
}

const refused = (field: 'smtp' | 'imap', login: ServerLogin, error: unknown) =>
  fieldError({ field, problem: `could not log in to ${login.host}:${login.port}: ${serverAnswer(error)}` });

/** Connects and authenticates to the SMTP server (nodemailer's verify); a 400 naming `smtp` with the server's answer when it fails. */
export async function verifySmtp(login: ServerLogin): Promise<void> {
  const { address, servername } = await approvedTarget(login.host, 'smtp');
  const { verify, ca } = tlsTrust(true);
  const transport = nodemailer.createTransport({
    host: address,
    port: login.port,
    secure: login.secure,
    // Without implicit TLS, STARTTLS is required (not merely tried) unless the server is on this machine.
    requireTLS: !login.secure && !isLoopbackAddress(address),
    auth: { user: login.user, pass: login.password },
    tls: { servername, rejectUnauthorized: verify, ...(ca && { ca }) },
    ...timeouts,
  });
  try {
    await transport.verify();
  } catch (error) {
    throw refused('smtp', login, error);
  } finally {
    transport.close();
  }
}

/** Logs in to the IMAP server and checks the mailbox exists; a 400 naming `imap` (or `imap.mailbox`) when either fails. */
export async function verifyImap(login: ServerLogin & { mailbox: string }): Promise<void> {
  let client: ImapFlow;
  try {
    client = await imapClientFor(login, timeouts);
  } catch (error) {
    throw fieldError({ field: 'imap.host', problem: (error as Error).message });
  }
  try {
    await client.connect();
  } catch (error) {
    client.close();
    throw refused('imap', login, error);
  }
  try {
    const found = await client.status(login.mailbox, { messages: true }).catch((error: unknown) => serverAnswer(error));
    if (typeof found !== 'object' || !found) {
      throw fieldError({
        field: 'imap.mailbox',
        problem: `${login.mailbox} cannot be opened${typeof found === 'string' ? `: ${found}` : ''}`,
      });
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}
