import type { Socket } from 'node:net';
import dns2, { type Packet, type TCPServer, type UDPServer } from 'dns2';
import { afterAll, beforeAll } from 'vitest';

const { Packet: DnsPacket } = dns2;

/** The records one name has; a type left out (or empty) is answered with no records (NOERROR/NODATA). */
export interface Zone {
  mx?: { exchange: string; priority: number }[];
  a?: string[];
  aaaa?: string[];
}

/** Names (without a trailing dot) to their records; a name not here is answered NXDOMAIN. */
export type Zones = Record<string, Zone>;

/** What the server does with a name instead of answering from the zones: never answer, SERVFAIL, or REFUSED. */
export type NameBehaviour = 'timeout' | 'servfail' | 'refused';

export interface TestDnsServer {
  /** `127.0.0.1:port` (the same port for UDP and TCP), for `Resolver.setServers`; set once the server listens. */
  servers: string[];
  /** What it answers from; a test may replace or change it at any time. */
  zones: Zones;
  /** Scripts a name (any type of query for it). */
  script(name: string, behaviour: NameBehaviour): void;
  /** Queries received so far for a name, of one type (`'MX'`, `'A'`, `'AAAA'`) or of any. */
  queries(name: string, type?: string): number;
  /** Forgets scripts and counts; the zones stay as they are. */
  reset(): void;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * A real DNS server (dns2) on 127.0.0.1, over UDP and TCP on one port
 * (node's resolver falls back to TCP when an answer is truncated),
 * answering MX, A and AAAA from `zones`; `close` stops it.
 */
export async function startDnsServer(zones: Zones = {}): Promise<TestDnsServer & { close(): Promise<void> }> {
  const scripts = new Map<string, NameBehaviour>();
  const counts = new Map<string, number>();
  const state = { servers: [] as string[], zones } as TestDnsServer & { close(): Promise<void> };

  const answer = (request: Packet, send: (response: Packet) => Promise<unknown>) => {
    const response = DnsPacket.createResponseFromRequest(request);
    const question = request.questions[0];
    if (!question) return void send(response);
    const name = normalize(question.name);
    const type = DnsPacket.typeName(question.type);
    for (const key of [`${name} ${type}`, name]) counts.set(key, (counts.get(key) ?? 0) + 1);
    const behaviour = scripts.get(name);
    if (behaviour === 'timeout') return;
    response.header.aa = 1;
    const zone = state.zones[name];
    if (behaviour === 'servfail') response.header.rcode = DnsPacket.RCODE.SERVFAIL;
    else if (behaviour === 'refused') response.header.rcode = DnsPacket.RCODE.REFUSED;
    else if (!zone) response.header.rcode = DnsPacket.RCODE.NXDOMAIN;
    else {
      const records =
        type === 'MX'
          ? (zone.mx ?? []).map((mx) => ({ type: DnsPacket.TYPE.MX, ...mx }))
          : type === 'A'
            ? (zone.a ?? []).map((address) => ({ type: DnsPacket.TYPE.A, address }))
            : type === 'AAAA'
              ? (zone.aaaa ?? []).map((address) => ({ type: DnsPacket.TYPE.AAAA, address }))
              : [];
      response.answers.push(...records.map((record) => DnsPacket.createResourceFromQuestion(question, { ttl: 60, ...record })));
    }
    send(response);
  };

  let udp: UDPServer | undefined;
  let tcp: TCPServer | undefined;
  const connections = new Set<Socket>();
  state.script = (name, behaviour) => void scripts.set(normalize(name), behaviour);
  state.queries = (name, type) => counts.get(type ? `${normalize(name)} ${type}` : normalize(name)) ?? 0;
  state.reset = () => {
    scripts.clear();
    counts.clear();
  };
  state.close = async () => {
    udp?.close();
    // A resolver's TCP connection would otherwise hold the close for the server's 10 s idle timeout.
    for (const socket of connections) socket.destroy();
    await new Promise((closed) => tcp?.close(closed));
  };
  // UDP takes a free port first; TCP then needs that same one, which another process may hold: try again.
  for (let attempt = 1; ; attempt++) {
    udp = dns2.createUDPServer(answer);
    await udp.listen(0, '127.0.0.1');
    const { port } = udp.address();
    tcp = dns2
      .createTCPServer(answer)
      .on('connection', (socket: Socket) => connections.add(socket.once('close', () => connections.delete(socket))));
    try {
      await new Promise<void>((listening, failed) => tcp!.once('error', failed).listen(port, '127.0.0.1', listening));
      state.servers = [`127.0.0.1:${port}`];
      return state;
    } catch (error) {
      udp.close();
      if (attempt === 5) throw error;
    }
  }
}

/** The DNS server above for one test file: started before its tests, stopped after. */
export function useDnsServer(zones: Zones = {}): TestDnsServer {
  const state = { servers: [] as string[], zones } as TestDnsServer;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const started = await startDnsServer(zones);
    close = started.close;
    // The test holds `state`: it becomes a view of the started server, its zones included.
    const { servers, script, queries, reset } = started;
    Object.assign(state, { servers, script, queries, reset });
    Object.defineProperty(state, 'zones', { get: () => started.zones, set: (next: Zones) => (started.zones = next) });
  });
  afterAll(() => close?.());
  return state;
}
