import { createServer, type Server, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';
import { startDnsServer, type Zones } from './dns-server.ts';

/**
 * What a mail host answers at RCPT TO for one address: `accept` (250),
 * `reject` (550 5.1.1 unknown user), `greylist` (451 4.7.1 the first time,
 * then 250), `tempfail` (451 every time), `blocked` (550 5.7.1 policy),
 * `full` (552 5.2.2), `slow` (250 after 300 ms).
 */
export type Answer = 'accept' | 'reject' | 'greylist' | 'tempfail' | 'blocked' | 'full' | 'slow';

export interface MailDomain {
  /** The loopback address its mail host (`mx.<domain>`) listens on, e.g. 127.0.0.11; several domains may share one. */
  ip?: string;
  /** The mail host's answer per local part; other addresses get `otherwise` (default `reject`). */
  mailboxes?: Record<string, Answer>;
  otherwise?: Answer;
  /** `silent`: the host accepts connections and never says a word. */
  host?: 'smtp' | 'silent';
  /** `none`: the domain exists (an A record elsewhere is not given) but has no MX and no address: it takes no mail. */
  dns?: 'mx' | 'none';
}

export interface MailWorld {
  /** Settings that point the service's validation at this world (filled once it started). */
  env: Record<string, string>;
  /** The one port every mail host listens on, at its own loopback address. */
  port: number;
  /** RCPT TO commands each address got. */
  rcpts(address: string): number;
  /** Every address asked for at a domain, with how often. */
  recipientsAt(domain: string): Record<string, number>;
  /** Connections a mail host address received in all, and the most it held at once. */
  connections(ip: string): { total: number; peak: number };
  /** DATA commands received by any host (a probe never sends one). */
  dataCommands(): number;
  /** Forgets counts and greylisting memory. */
  reset(): void;
  stop(): Promise<void>;
}

export interface WorldOptions {
  /** The loopback addresses the outbound guard exempts (OUTBOUND_ALLOWED_ADDRESSES); every mail host's by default. */
  allowed?: string[];
  /** How long each RCPT TO takes to answer, as a real server's does (0 by default). */
  rcptDelayMs?: number;
}

const replies: Record<Exclude<Answer, 'accept' | 'slow'>, [number, string]> = {
  reject: [550, '5.1.1 The email account that you tried to reach does not exist'],
  greylist: [451, '4.7.1 Greylisted, please try again later'],
  tempfail: [451, '4.3.0 Temporary failure, try again later'],
  blocked: [550, '5.7.1 Service refused: client host blocked using a blocklist'],
  full: [552, '5.2.2 Mailbox full'],
};

/**
 * Mail domains on loopback, as validation meets them on the internet: a
 * real DNS server (dns2) answering each domain's MX and its host's address,
 * and real SMTP servers (smtp-server), one per loopback address on one
 * shared port (the probe port), each answering RCPT TO as scripted and
 * counting connections (at once and in all) and commands.
 */
export async function startMailWorld(domains: Record<string, MailDomain>, options: WorldOptions = {}): Promise<MailWorld> {
  const zones: Zones = {};
  const hosts = new Map<string, { domains: string[]; silent: boolean }>();
  for (const [domain, spec] of Object.entries(domains)) {
    if (spec.dns === 'none' || !spec.ip) {
      zones[domain] = {};
      continue;
    }
    zones[domain] = { mx: [{ exchange: `mx.${domain}`, priority: 10 }] };
    zones[`mx.${domain}`] = { a: [spec.ip] };
    const host = hosts.get(spec.ip) ?? { domains: [], silent: spec.host === 'silent' };
    host.domains.push(domain);
    hosts.set(spec.ip, host);
  }
  const dns = await startDnsServer(zones);

  const rcpts = new Map<string, number>();
  const seen = new Set<string>();
  const counts = new Map<string, { open: number; total: number; peak: number }>();
  let data = 0;
  const answerFor = (address: string): Answer => {
    const [local, domain] = address.toLowerCase().split('@') as [string, string];
    const spec = domains[domain];
    return spec?.mailboxes?.[local] ?? spec?.otherwise ?? 'reject';
  };
  const track = (ip: string, socket: { once(event: 'close', listener: () => void): unknown }) => {
    const count = counts.get(ip) ?? { open: 0, total: 0, peak: 0 };
    count.open += 1;
    count.total += 1;
    count.peak = Math.max(count.peak, count.open);
    counts.set(ip, count);
    socket.once('close', () => (count.open -= 1));
  };

  const sockets = new Set<Socket>();
  const createHost = (ip: string, silent: boolean): SMTPServer | Server => {
    if (silent) {
      return createServer((socket) => {
        track(ip, socket);
        sockets.add(socket);
        // A probe giving up resets the connection: expected, not an error of the test's.
        socket.on('error', () => undefined).once('close', () => sockets.delete(socket));
      });
    }
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 1_000,
      onConnect: (_session, done) => done(),
      onRcptTo: (address: SMTPServerAddress, _session, reply) => {
        const done = (error?: Error) => (options.rcptDelayMs ? setTimeout(() => reply(error), options.rcptDelayMs) : reply(error));
        const recipient = address.address.toLowerCase();
        rcpts.set(recipient, (rcpts.get(recipient) ?? 0) + 1);
        let answer = answerFor(recipient);
        if (answer === 'greylist' && seen.has(recipient)) answer = 'accept';
        seen.add(recipient);
        if (answer === 'accept') return done();
        if (answer === 'slow') return void setTimeout(() => done(), 300);
        const [code, text] = replies[answer];
        done(Object.assign(new Error(text), { responseCode: code }));
      },
      onData: (stream, _session, done) => (data++, stream.resume(), stream.on('end', () => done())),
    });
    server.server.on('connection', (socket: Socket) => track(ip, socket));
    // A client that dies mid-conversation (a worker killed on purpose) resets its connection: smtp-server reports it here.
    server.on('error', () => undefined);
    return server;
  };
  const close = (server: SMTPServer | Server) => new Promise<void>((done) => server.close(() => done()));

  // Every host on one port: the first takes a free one, which another process may hold at another address: try again.
  let servers: Array<SMTPServer | Server> = [];
  let port = 0;
  for (let attempt = 1; servers.length < hosts.size; attempt++) {
    try {
      for (const [ip, host] of hosts) {
        const server = createHost(ip, host.silent);
        const net = server instanceof SMTPServer ? server.server : server;
        servers.push(server);
        await new Promise<void>((listening, failed) => {
          net.once('error', failed);
          server.listen(port, ip, () => (net.off('error', failed), listening()));
        });
        port ||= (net.address() as { port: number }).port;
      }
    } catch (error) {
      await Promise.all(servers.map(close));
      servers = [];
      port = 0;
      if (attempt === 5) throw error;
    }
  }

  const allowed = options.allowed ?? [...hosts.keys()];
  return {
    env: {
      DNS_SERVERS: dns.servers[0]!,
      SMTP_PROBE_PORT: String(port || 1),
      SMTP_PROBE_HELO: 'probe.leadops.test',
      SMTP_PROBE_FROM: 'verify@probe.leadops.test',
      SMTP_PROBE_TIMEOUT_MS: '1000',
      OUTBOUND_ALLOWED_ADDRESSES: allowed.join(','),
    },
    port,
    rcpts: (address) => rcpts.get(address.toLowerCase()) ?? 0,
    recipientsAt: (domain) => Object.fromEntries([...rcpts].filter(([address]) => address.endsWith(`@${domain}`))),
    connections: (ip) => ({ total: counts.get(ip)?.total ?? 0, peak: counts.get(ip)?.peak ?? 0 }),
    dataCommands: () => data,
    reset: () => {
      rcpts.clear();
      seen.clear();
      counts.clear();
      data = 0;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map(close));
      await dns.close();
    },
  };
}

/**
 * The mail world above for one test file. Its `env` is filled before the
 * API server's hooks run when this is called first, so pass it to
 * useApiServer (which reads its env when it starts).
 */
export function useMailWorld(domains: Record<string, MailDomain>, options: WorldOptions = {}): MailWorld {
  const world = { env: {} } as MailWorld;
  beforeAll(async () => {
    const started = await startMailWorld(domains, options);
    const { env, ...rest } = started;
    Object.assign(world.env, env);
    Object.assign(world, rest);
  });
  afterAll(() => world.stop?.());
  return world;
}
