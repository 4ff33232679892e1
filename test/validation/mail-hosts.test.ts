import { createSocket, type Socket } from 'node:dgram';
import { beforeEach, describe, expect, it } from 'vitest';
import { mailHosts } from '../../src/validation/checks/mail-hosts.ts';
import { useDnsServer } from '../support/dns-server.ts';

/** mailHosts against a real DNS server on 127.0.0.1 (dns2), over node's own resolver. */
const dns = useDnsServer({
  'acme.test': {
    mx: [
      { exchange: 'mx2.acme.test', priority: 20 },
      { exchange: 'MX1.acme.test.', priority: 10 },
      { exchange: 'backup.acme.test', priority: 30 },
      { exchange: 'mx1.acme.test', priority: 40 },
      { exchange: 'alt.acme.test', priority: 10 },
    ],
  },
  'mx1.acme.test': { a: ['127.0.0.11'], aaaa: ['::1'] },
  'mx2.acme.test': { a: ['127.0.0.12'] },
  'alt.acme.test': { aaaa: ['fd00::10'] },
  'backup.acme.test': { a: ['127.0.0.13', '127.0.0.14'] },
  'nomail.test': { mx: [{ exchange: '.', priority: 0 }], a: ['127.0.0.20'] },
  'web-only.test': { a: ['127.0.0.30'], aaaa: ['::1'] },
  'parked.test': {},
  'dangling.test': {
    mx: [
      { exchange: 'gone.dangling.test', priority: 10 },
      { exchange: 'empty.dangling.test', priority: 20 },
    ],
  },
  'empty.dangling.test': {},
  'half.test': {
    mx: [
      { exchange: 'gone.half.test', priority: 5 },
      { exchange: 'mx.half.test', priority: 10 },
    ],
  },
  'mx.half.test': { a: ['127.0.0.40'] },
  'mute-host.test': { mx: [{ exchange: 'mx.mute-host.test', priority: 10 }] },
  // More addresses than a UDP answer carries (1232 bytes with EDNS): the resolver asks again over TCP.
  'big.test': { a: Array.from({ length: 100 }, (_, i) => `127.0.1.${i}`) },
});

const options = () => ({ servers: dns.servers, timeoutMs: 1_000 });

beforeEach(() => dns.reset());

describe('mailHosts', () => {
  it('lists the MX hosts by preference, equal ones by name, each host once at its best preference, with its IPv4 then IPv6 addresses', async () => {
    expect(await mailHosts('acme.test', options())).toEqual({
      kind: 'hosts',
      hosts: [
        { host: 'alt.acme.test', priority: 10, addresses: ['fd00::10'] },
        { host: 'mx1.acme.test', priority: 10, addresses: ['127.0.0.11', '::1'] },
        { host: 'mx2.acme.test', priority: 20, addresses: ['127.0.0.12'] },
        { host: 'backup.acme.test', priority: 30, addresses: ['127.0.0.13', '127.0.0.14'] },
      ],
    });
    expect(dns.queries('mx1.acme.test', 'A')).toBe(1);
  });

  it('takes a null MX (RFC 7505) as no mail accepted, without falling back to the address', async () => {
    expect(await mailHosts('nomail.test', options())).toEqual({ kind: 'none', reason: 'null-mx' });
    expect(dns.queries('nomail.test', 'A')).toBe(0);
  });

  it("falls back to the domain's own addresses when it has no MX (RFC 5321 §5.1)", async () => {
    expect(await mailHosts('web-only.test', options())).toEqual({
      kind: 'hosts',
      hosts: [{ host: 'web-only.test', priority: 0, addresses: ['127.0.0.30', '::1'] }],
    });
    expect(dns.queries('web-only.test', 'MX')).toBe(1);
  });

  it('reads an answer too big for UDP over TCP', async () => {
    const found = await mailHosts('big.test', options());
    expect(found.kind === 'hosts' && found.hosts[0]!.addresses).toHaveLength(100);
    expect(dns.queries('big.test', 'A')).toBe(2);
  });

  it('finds no mail host for a domain with neither MX nor address', async () => {
    expect(await mailHosts('parked.test', options())).toEqual({ kind: 'none', reason: 'no-mail-host' });
  });

  it('finds no mail host for a domain that does not exist, asking only for its MX', async () => {
    expect(await mailHosts('nowhere.test', options())).toEqual({ kind: 'none', reason: 'no-domain' });
    expect(dns.queries('nowhere.test')).toBe(1);
  });

  it('takes a name DNS cannot carry as no domain, without asking', async () => {
    const name = `${'a'.repeat(64)}.test`;
    expect(await mailHosts(name, options())).toEqual({ kind: 'none', reason: 'no-domain' });
    expect(dns.queries(name)).toBe(0);
  });

  it('finds no mail host when no MX host has an address, and skips the ones without', async () => {
    expect(await mailHosts('dangling.test', options())).toEqual({ kind: 'none', reason: 'mx-without-address' });
    expect(await mailHosts('half.test', options())).toEqual({
      kind: 'hosts',
      hosts: [{ host: 'mx.half.test', priority: 10, addresses: ['127.0.0.40'] }],
    });
  });

  it('sees the zones change between lookups', async () => {
    dns.zones['parked.test'] = { mx: [{ exchange: 'mx2.acme.test', priority: 5 }] };
    try {
      expect(await mailHosts('parked.test', options())).toEqual({
        kind: 'hosts',
        hosts: [{ host: 'mx2.acme.test', priority: 5, addresses: ['127.0.0.12'] }],
      });
    } finally {
      dns.zones['parked.test'] = {};
    }
  });

  it('calls a name that never answers temporary, within the timeout, having asked again', async () => {
    dns.script('acme.test', 'timeout');
    const started = Date.now();
    expect(await mailHosts('acme.test', options())).toEqual({ kind: 'temporary', reason: 'ETIMEOUT' });
    expect(Date.now() - started).toBeLessThan(1_400);
    expect(dns.queries('acme.test', 'MX')).toBe(2);
  });

  it('calls an MX host that never answers temporary, within the timeout', async () => {
    dns.script('mx.mute-host.test', 'timeout');
    const started = Date.now();
    expect(await mailHosts('mute-host.test', options())).toEqual({ kind: 'temporary', reason: 'ETIMEOUT' });
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it('keeps to the timeout however many servers there are to try', async () => {
    // Two more servers that never answer: six tries of at least 150 ms, cut off at 600.
    const mute = await Promise.all(
      [1, 2].map(
        () =>
          new Promise<Socket>((bound) => {
            const socket = createSocket('udp4');
            socket.bind(0, '127.0.0.1', () => bound(socket));
          }),
      ),
    );
    dns.script('acme.test', 'timeout');
    try {
      const servers = [...dns.servers, ...mute.map((socket) => `127.0.0.1:${socket.address().port}`)];
      const started = Date.now();
      expect(await mailHosts('acme.test', { servers, timeoutMs: 600 })).toEqual({ kind: 'temporary', reason: 'ETIMEOUT' });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      for (const socket of mute) socket.close();
    }
  });

  it('calls SERVFAIL and REFUSED temporary', async () => {
    dns.script('acme.test', 'servfail');
    expect(await mailHosts('acme.test', options())).toEqual({ kind: 'temporary', reason: 'ESERVFAIL' });
    dns.script('acme.test', 'refused');
    expect(await mailHosts('acme.test', options())).toEqual({ kind: 'temporary', reason: 'EREFUSED' });
  });
});
