import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SmtpProbe } from '../../src/validation/checks/smtp-probe.ts';

/** The RCPT-only SMTP conversation, against a real SMTP server on 127.0.0.1 that records every command. */
const commands: string[] = [];
let greylisted = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onConnect: (_session, done) => done(),
  onMailFrom: (address, _session, done) => (commands.push(`MAIL ${address.address}`), done()),
  onRcptTo: (address, _session, done) => {
    commands.push(`RCPT ${address.address}`);
    const local = address.address.split('@')[0];
    if (local === 'nobody') return done(Object.assign(new Error('5.1.1 User unknown'), { responseCode: 550 }));
    if (local === 'grey' && greylisted++ === 0)
      return done(Object.assign(new Error('4.7.1 Greylisted, try again later'), { responseCode: 451 }));
    done();
  },
  onData: (stream, _session, done) => (commands.push('DATA'), stream.resume(), stream.on('end', () => done())),
});
let port = 0;
// A server that accepts connections and never says a word.
let silent: Server;
let silentPort = 0;
const loopback = { host: 'mx.acme.test', addresses: ['127.0.0.1'] };
const options = () => ({ port, helo: 'probe.example.test', from: 'check@probe.example.test', timeoutMs: 1_000 });

beforeAll(async () => {
  loadConfig({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.server.address() as AddressInfo).port;
  silent = createServer(() => {});
  await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  silentPort = (silent.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await new Promise<void>((done) => silent.close(() => done()));
});

describe('SmtpProbe', () => {
  it('asks about several recipients on one connection, never sending DATA', async () => {
    commands.length = 0;
    const probe = await SmtpProbe.open(loopback, options());
    expect(await probe.check('ada@acme.test')).toEqual({ kind: 'accepted', code: 250 });
    expect(await probe.check('nobody@acme.test')).toMatchObject({
      kind: 'rejected',
      code: 550,
      text: expect.stringContaining('User unknown'),
    });
    expect(await probe.check('grey@acme.test')).toMatchObject({ kind: 'temporary', reason: expect.stringContaining('451') });
    expect(await probe.check('grey@acme.test')).toEqual({ kind: 'accepted', code: 250 });
    await probe.close();
    expect(commands).toEqual([
      'MAIL check@probe.example.test',
      'RCPT ada@acme.test',
      'MAIL check@probe.example.test',
      'RCPT nobody@acme.test',
      'MAIL check@probe.example.test',
      'RCPT grey@acme.test',
      'MAIL check@probe.example.test',
      'RCPT grey@acme.test',
      'MAIL check@probe.example.test',
    ]);
  });

  it("tries the host's next address when one refuses the connection", async () => {
    loadConfig({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1,127.0.0.2' });
    commands.length = 0;
    // Nothing listens on 127.0.0.2 at the server's port.
    const probe = await SmtpProbe.open({ host: 'mx.acme.test', addresses: ['127.0.0.2', '127.0.0.1'] }, options());
    expect(await probe.check('ada@acme.test')).toEqual({ kind: 'accepted', code: 250 });
    await probe.close();
    expect(commands).toContain('RCPT ada@acme.test');
    loadConfig({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });
  });

  it("connects to none of a host's addresses when one of them is refused by the guard", async () => {
    commands.length = 0;
    // 127.0.0.9 is loopback but not exempted: refused like any private address (and, were it not, never reached).
    await expect(SmtpProbe.open({ host: 'mx.acme.test', addresses: ['127.0.0.1', '127.0.0.9'] }, options())).rejects.toMatchObject({
      code: 'url_not_allowed',
    });
    expect(commands).toEqual([]);
  });

  it('gives up on a server that never answers within the timeout', async () => {
    const started = Date.now();
    await expect(SmtpProbe.open(loopback, { ...options(), port: silentPort })).rejects.toThrow(/no answer within 1000 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('connects only where the outbound guard allows', async () => {
    loadConfig({});
    await expect(SmtpProbe.open(loopback, options())).rejects.toMatchObject({ code: 'url_not_allowed' });
    loadConfig({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });
  });
});
