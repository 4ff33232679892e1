import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';

/**
 * What the server does with one recipient: accept, refuse for good (550 5.1.1), refuse for now (451), answer slowly,
 * or never answer while the connection lasts (`hold`: a message in flight when its sender dies).
 */
export type RecipientBehaviour = 'accept' | 'reject' | 'tempfail' | 'hold' | { delayMs: number };

export interface ReceivedMail {
  /** The SMTP envelope. */
  from: string;
  to: string[];
  /** The authenticated user that sent it. */
  user: string;
  raw: string;
  parsed: ParsedMail;
  /** A header's value, raw (unfolded), or undefined. */
  header(name: string): string | undefined;
}

export interface TestSmtpServer {
  host: string;
  port: number;
  /** Accepted messages, in order. */
  received: ReceivedMail[];
  /** Scripts a recipient (an address, or `@domain` for every address at it). */
  script(recipient: string, behaviour: RecipientBehaviour): void;
  /** RCPT commands answered so far (accepted or not), by recipient. */
  attempts(recipient: string): number;
  /** Called at each RCPT before it is answered: a test's look at the world as a message goes out. */
  onRecipient?: (address: string) => void;
  reset(): void;
}

const headerOf = (raw: string, name: string) => {
  const head = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
};

/**
 * A real SMTP server on 127.0.0.1 for one test file (smtp-server, AUTH
 * PLAIN/LOGIN without TLS), scriptable per recipient; it keeps what it
 * accepted. `users` are the accounts it accepts.
 */
export function useSmtpServer(users: Record<string, string> = { sender: 'secret' }): TestSmtpServer {
  const scripts = new Map<string, RecipientBehaviour>();
  const rcpts = new Map<string, number>();
  const state = { host: '127.0.0.1', port: 0, received: [] as ReceivedMail[] } as TestSmtpServer;
  const behaviourFor = (address: string) =>
    scripts.get(address.toLowerCase()) ?? scripts.get(`@${address.split('@')[1]?.toLowerCase()}`) ?? 'accept';
  const server = new SMTPServer({
    secure: false,
    // A client still connected (a pooled transport) is cut off after a second when the file ends, not the default 30.
    closeTimeout: 1_000,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username && users[auth.username] === auth.password) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const recipient = address.address.toLowerCase();
      rcpts.set(recipient, (rcpts.get(recipient) ?? 0) + 1);
      state.onRecipient?.(recipient);
      const behaviour = behaviourFor(recipient);
      if (behaviour === 'reject')
        return callback(Object.assign(new Error('5.1.1 The email account that you tried to reach does not exist'), { responseCode: 550 }));
      if (behaviour === 'tempfail') return callback(Object.assign(new Error('4.7.1 Try again later'), { responseCode: 451 }));
      if (typeof behaviour === 'object') return void setTimeout(() => callback(), behaviour.delayMs);
      if (behaviour === 'hold') return;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        state.received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: String(session.user ?? ''),
          raw,
          parsed: await simpleParser(raw),
          header: (name) => headerOf(raw, name),
        });
        callback();
      });
    },
  });
  state.script = (recipient, behaviour) => void scripts.set(recipient.toLowerCase(), behaviour);
  state.attempts = (recipient) => rcpts.get(recipient.toLowerCase()) ?? 0;
  state.reset = () => {
    state.onRecipient = undefined;
    scripts.clear();
    rcpts.clear();
    state.received.length = 0;
  };
  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    state.port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  return state;
}
