import { connect, type Socket } from 'node:net';
import { assertAddressesAllowed } from '../../../outbound/address-guard.ts';
import { addressPolicy } from '../../net/address-policy.ts';

/** What a mail server said of one recipient. */
export type RcptVerdict =
  | { kind: 'accepted'; code: number }
  | { kind: 'rejected'; code: number; text: string }
  /** 4xx (greylisting, rate limits), a timeout, a dropped connection: no verdict, ask again later. */
  | { kind: 'temporary'; reason: string };

export interface ProbeOptions {
  port: number;
  helo: string;
  from: string;
  timeoutMs: number;
}

interface Reply {
  code: number;
  text: string;
}

/**
 * An SMTP conversation that asks about recipients and sends nothing:
 * greeting, EHLO (HELO when EHLO is refused), MAIL FROM, then per address
 * RCPT TO and RSET, and QUIT; never DATA. One session serves several
 * addresses of a domain. The connection goes to an address the outbound
 * guard approved for the host (nodemailer's SMTP client has no RCPT-only
 * conversation, so this is a small one of its own).
 */
export class SmtpProbe {
  private buffer = '';
  private waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;

  private readonly socket: Socket;
  private readonly options: ProbeOptions;

  private constructor(socket: Socket, options: ProbeOptions) {
    this.socket = socket;
    this.options = options;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.take(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the server closed the connection')));
  }

  /**
   * Connects to the mail host at one of `addresses` (its own DNS answer,
   * tried in order), which the outbound address guard must allow, all of
   * them: a refused host throws the guard's error before any connection.
   */
  static async open(target: { host: string; addresses: string[] }, options: ProbeOptions): Promise<SmtpProbe> {
    const addresses = assertAddressesAllowed(target.host, target.addresses, addressPolicy());
    let socket: Socket | undefined;
    for (const [i, address] of addresses.entries()) {
      try {
        socket = await connected(address, options);
        break;
      } catch (error) {
        if (i === addresses.length - 1) throw error;
      }
    }
    const probe = new SmtpProbe(socket!, options);
    try {
      expect(await probe.reply(), 220, 'greeting');
      const ehlo = await probe.command(`EHLO ${options.helo}`);
      if (ehlo.code !== 250) expect(await probe.command(`HELO ${options.helo}`), 250, 'HELO');
      expect(await probe.command(`MAIL FROM:<${options.from}>`), 250, 'MAIL FROM');
      return probe;
    } catch (error) {
      socket!.destroy();
      throw error;
    }
  }

  /** Asks about one recipient, then resets the transaction for the next. */
  async check(address: string): Promise<RcptVerdict> {
    let reply: Reply;
    try {
      reply = await this.command(`RCPT TO:<${address}>`);
    } catch (error) {
      return { kind: 'temporary', reason: (error as Error).message };
    }
    await this.command('RSET')
      .then(() => this.command(`MAIL FROM:<${this.options.from}>`))
      .catch(() => undefined); // the verdict stands; the session is closed by the caller if it broke
    if (reply.code >= 200 && reply.code < 300) return { kind: 'accepted', code: reply.code };
    if (reply.code >= 500) return { kind: 'rejected', code: reply.code, text: reply.text };
    return { kind: 'temporary', reason: `${reply.code} ${reply.text}` };
  }

  /** True while the conversation can take another address. */
  get usable(): boolean {
    return this.failure === null && !this.socket.destroyed;
  }

  async close(): Promise<void> {
    if (this.usable) await this.command('QUIT').catch(() => undefined);
    this.socket.destroy();
  }

  private command(line: string): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** The next complete reply (multi-line replies joined), or the connection's failure, within the timeout. */
  private reply(): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      this.waiting = {
        resolve: (reply) => (clearTimeout(timer), resolve(reply)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
      this.take('');
    });
  }

  private take(chunk: string) {
    this.buffer += chunk;
    if (!this.waiting) return;
    const lines = this.buffer.split('\r\n');
    const last = lines.findIndex((line) => /^\d{3}( |$)/.test(line));
    if (last === -1 || last === lines.length - 1) return; // the final line has not ended yet
    const replyLines = lines.slice(0, last + 1);
    this.buffer = lines.slice(last + 1).join('\r\n');
    const waiting = this.waiting;
    this.waiting = null;
    waiting.resolve({
      code: Number(replyLines[last]!.slice(0, 3)),
      text: replyLines
        .map((line) => line.slice(4))
        .join(' ')
        .trim(),
    });
  }

  private fail(error: Error) {
    this.failure ??= error;
    this.socket.destroy();
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(this.failure);
  }
}

function connected(address: string, options: ProbeOptions): Promise<Socket> {
  const socket = connect({ host: address, port: options.port });
  return new Promise<Socket>((resolve, reject) => {
    const fail = (error: Error) => (socket.destroy(), reject(error));
    socket.once('connect', () => (socket.setTimeout(0), socket.off('error', fail), resolve(socket)));
    socket.once('error', fail);
    socket.setTimeout(options.timeoutMs, () => fail(new Error(`no connection within ${options.timeoutMs} ms`)));
  });
}

function expect(reply: Reply, code: number, step: string) {
  if (reply.code !== code) throw Object.assign(new Error(`${step}: ${reply.code} ${reply.text}`), { smtpCode: reply.code });
}
