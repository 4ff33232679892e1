import { isIP } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import nodemailer, { type Transporter } from 'nodemailer';
import { approvedAddresses, isLoopbackAddress } from '../../../outbound/address-guard.ts';
import { addressPolicy } from '../../net/address-policy.ts';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  auth: { user: string; pass: string };
}

const pools = new Map<string, { fingerprint: string; transporter: Transporter }>();

/**
 * The pooled SMTP transport of an inbox. It connects to an address the
 * outbound guard approved for the inbox's host (nodemailer is given the
 * address; TLS still checks the certificate against the host name), and is
 * rebuilt when the inbox's settings or the host's answer change.
 */
export async function transportFor(inboxId: string, smtp: SmtpSettings): Promise<Transporter> {
  const [address] = await approvedAddresses(smtp.host, addressPolicy());
  // Compared as it is, not hashed: it is made for every message, and the transporter holds the same settings anyway.
  const fingerprint = JSON.stringify([smtp, address]);
  const pooled = pools.get(inboxId);
  if (pooled?.fingerprint === fingerprint) return pooled.transporter;
  pooled?.transporter.close();
  const transporter = nodemailer.createTransport({
    host: address,
    port: smtp.port,
    secure: smtp.secure,
    // Without implicit TLS, STARTTLS is required (not merely tried) unless the server is on this machine.
    requireTLS: !smtp.secure && !isLoopbackAddress(address!),
    auth: smtp.auth,
    // TLS checks the certificate against the host name (an IP literal sends no SNI).
    ...(!isIP(smtp.host) && { tls: { servername: smtp.host } }),
    pool: true,
    maxConnections: 4,
    maxMessages: 500,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  transporter.use('stream', (mail, done) => {
    mail.message.transform(() => new WholeMessage());
    done();
  });
  pools.set(inboxId, { fingerprint, transporter });
  return transporter;
}

/**
 * Hands the socket the message in one piece: nodemailer streams a message
 * in about ten small pieces, each its own socket write (a system call, and
 * a read on the server's side). Outreach messages are a few kilobytes.
 */
class WholeMessage extends Transform {
  private readonly pieces: Buffer[] = [];

  override _transform(piece: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.pieces.push(piece);
    done();
  }

  override _flush(done: TransformCallback) {
    done(null, Buffer.concat(this.pieces));
  }
}

/** Closes every pooled connection (the worker stops). */
export function closeTransports(): void {
  for (const { transporter } of pools.values()) transporter.close();
  pools.clear();
}

/** How an SMTP attempt failed, for what happens next. */
export type SmtpFailure = { kind: 'rejected' | 'temporary' | 'permanent'; message: string; code: string | null };

/**
 * A recipient refused for good at RCPT (5.x.x) is a hard bounce; 4xx
 * answers, connection errors and refused logins (the inbox's problem, not
 * the lead's) are temporary; any other 5xx fails the message.
 */
export function classifySmtpError(error: unknown): SmtpFailure {
  const failure = error as { responseCode?: number; command?: string; response?: string; message?: string; code?: string };
  const message = (failure.response ?? failure.message ?? String(error)).split('\n')[0]!;
  const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(message)?.[1] ?? null;
  const code = failure.responseCode ? `${failure.responseCode}${status ? ` ${status}` : ''}` : (failure.code ?? null);
  if (!failure.responseCode || failure.responseCode < 500 || failure.responseCode === 530 || failure.responseCode === 535)
    return { kind: 'temporary', message, code };
  return { kind: /RCPT/i.test(failure.command ?? '') ? 'rejected' : 'permanent', message, code };
}
