import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/worker/worker.ts';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useImapServer } from '../support/imap-server.ts';
import { createInbox, outreachEnv } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';
import { useTcpRelay } from '../support/tcp-relay.ts';

/**
 * How often and at what cost each inbox's mailbox is read (Dovecot on
 * 127.0.0.1): an inbox is read at MAILBOX_POLL_MS whatever the other
 * inboxes' servers do, over one IMAP session kept between reads.
 */
const server = useApiServer({ ...outreachEnv, MAILBOX_POLL_MS: '1000' });
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ ana: 'secret', ben: 'secret', cal: 'secret', dan: 'secret' });
const relay = useTcpRelay(() => imap);

/** An IMAP server that takes connections and never greets: each one waits out the client's greeting timeout (15 s). */
const held = new Set<Socket>();
const stalled = createServer((socket) => void held.add(socket.on('error', () => undefined)));
let stalledPort = 0;
beforeAll(async () => {
  await new Promise<void>((done) => stalled.listen(0, '127.0.0.1', done));
  stalledPort = (stalled.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise<void>((done) => stalled.close(() => done()));
});

const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);
const cursorOf = (inboxId: string) => collection('outreach_mailbox_cursors').findOne({ _id: inboxId });
const reply = (user: string, n: number) =>
  imap.append(
    user,
    [`From: lead${n}@x.test`, `To: ${user}@acme.test`, `Subject: Re: Hello ${n}`, `Message-ID: <${user}-${n}@x.test>`, '', 'Yes.', ''].join(
      '\r\n',
    ),
  );

/** A workspace with one inbox reading `user`'s mailbox at `port` (Dovecot's own by default). */
async function inboxOf(user: string, port = imap.port) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp, {
    from: `${user}@acme.test`,
    imap: { host: imap.host, port: imap.port, secure: false, user, password: 'secret' },
  });
  // Saved once its login was checked; then pointed where the test wants it.
  if (port !== imap.port) await collection('outreach_inboxes').updateOne({ _id: inbox.id }, { $set: { 'imap.port': port } });
  return inbox as { id: string };
}

describe('reading an inbox', () => {
  it('keeps one IMAP session between reads, and each read takes the mail that arrived on it', async () => {
    const inbox = await inboxOf('ana', relay.port);
    const before = relay.connections();
    for (let n = 1; n <= 3; n++) {
      await reply('ana', n);
      expect((await readMailboxes())[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });
    }
    expect(relay.connections() - before).toBe(1);
  });

  it('replaces a kept session the server has closed since, without counting a failure', async () => {
    const inbox = await inboxOf('ben', relay.port);
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 0, alreadyStored: 0 });
    relay.dropAll();
    await reply('ben', 1);
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });
    expect(await cursorOf(inbox.id)).toMatchObject({ error: null, failures: 0, lastUid: 1 });
  });

  it('reads the other inboxes while one server stalls: a call with a wait answers without it and the next one reads on', async () => {
    const stuck = await inboxOf('cal', stalledPort);
    const inbox = await inboxOf('dan');
    await reply('dan', 1);
    // A wait a loaded machine's healthy read fits in; two of them stay below the stalled server's 15 s greeting timeout.
    const first = await readMailboxes({ waitMs: 4_000 });
    expect(first[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });
    // Its read is still waiting for a greeting: no report, nothing recorded yet.
    expect(first[stuck.id]).toBeUndefined();
    await reply('dan', 2);
    const second = await readMailboxes({ waitMs: 4_000 });
    expect(second[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });
    expect(second[stuck.id]).toBeUndefined();
    expect(await cursorOf(stuck.id)).toBeNull();
    // The stalled inbox is left out of the next tests: its read ends with an error in the background.
    await collection('outreach_inboxes').deleteOne({ _id: stuck.id });
  });
});

describe('the worker', () => {
  it('reads an inbox every MAILBOX_POLL_MS (1 s here) while another inbox waits on a stalled server', async () => {
    await inboxOf('cal', stalledPort);
    const inbox = await inboxOf('ana');
    const worker = await startWorker({ concurrency: 2 });
    const checks = new Set<number>();
    try {
      // Each read of the inbox stamps its cursor: three stamps take about 3 s (longer on a loaded machine); a reader held
      // up by the stalled server would stamp at most once before its greeting timeout (15 s).
      for (const end = Date.now() + 12_000; checks.size < 3 && Date.now() < end; await sleep(50)) {
        const checkedAt = (await cursorOf(inbox.id))?.checkedAt;
        if (checkedAt instanceof Date) checks.add(checkedAt.getTime());
      }
      await reply('ana', 9);
      const deadline = Date.now() + 20_000;
      while (!(await collection('outreach_replies').findOne({ inboxId: inbox.id, messageId: '<ana-9@x.test>' })) && Date.now() < deadline)
        await sleep(100);
    } finally {
      await worker.stop();
    }
    expect(checks.size).toBeGreaterThanOrEqual(3);
    expect(await collection('outreach_replies').findOne({ inboxId: inbox.id, messageId: '<ana-9@x.test>' })).not.toBeNull();
  }, 60_000);
});
