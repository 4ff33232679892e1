import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../src/secrets/secret-box.ts';
import { createOwnerKey, createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { freePort } from '../support/processes.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

// Verification connects to the test's own servers on 127.0.0.1, which the outbound guard refuses unless allowed.
const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });
const smtp = useSmtpServer({ sender: 'smtp-pass-1' });

/**
 * A bare IMAP server that greets and then refuses every login, the way a
 * server answers a wrong password. A real IMAP server (Dovecot) comes with
 * reply reading in the next issue; until then only the IMAP failure paths are
 * tested: a refused login and a closed port.
 */
let imapRefusing: Server;
let imapPort = 0;
beforeAll(async () => {
  imapRefusing = createServer((socket) => {
    socket.write('* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] test server ready\r\n');
    socket.on('data', (chunk) => {
      for (const line of chunk.toString().split('\r\n').filter(Boolean)) {
        const [tag, command = ''] = line.split(' ');
        if (/^CAPABILITY$/i.test(command)) socket.write(`* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n${tag} OK done\r\n`);
        else if (/^LOGOUT$/i.test(command)) socket.end(`* BYE\r\n${tag} OK bye\r\n`);
        else socket.write(`${tag} NO [AUTHENTICATIONFAILED] Invalid credentials (test server)\r\n`);
      }
    });
  });
  await new Promise<void>((done) => imapRefusing.listen(0, '127.0.0.1', done));
  imapPort = (imapRefusing.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((done) => imapRefusing.close(() => done())));

const smtpLogin = (password = 'smtp-pass-1') => ({ host: '127.0.0.1', port: smtp.port, secure: false, user: 'sender', password });
const inboxBody = (extra: Record<string, unknown> = {}) => ({
  name: "Ada's inbox",
  from: 'ada@acme.test',
  from_name: 'Ada Byron',
  smtp: smtpLogin(),
  ...extra,
});
const storedInbox = (id: string) => mongoose.connection.db!.collection<{ _id: string }>('outreach_inboxes').findOne({ _id: id });

async function createInbox(key: string, extra: Record<string, unknown> = {}) {
  const res = await server.request('POST', '/api/outreach/inboxes', { key, body: inboxBody(extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.inbox;
}

describe('creating an inbox', () => {
  it('logs in to the SMTP server first, then stores it with the password sealed and never returned', async () => {
    const { apiKey, brandId } = await createTestWorkspace();
    const res = await server.request('POST', '/api/outreach/inboxes', { key: apiKey, body: inboxBody({ dailyLimit: 40 }) });
    expect(res.status).toBe(201);
    expect(res.body.inbox).toEqual({
      id: expect.any(String),
      name: "Ada's inbox",
      from: 'ada@acme.test',
      from_name: 'Ada Byron',
      brand_id: brandId,
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'sender' },
      imap: null,
      imapCheckedAt: null,
      imapError: null,
      sent24h: 0,
      cap: 40,
      dailyLimit: 40,
      sent14d: 0,
      failed14d: 0,
      opened14d: 0,
      bounced14d: 0,
      bounceRate14d: 0,
      bounceRate24h: 0,
      warmupEnabled: false,
      warmingUp: false,
      sendingPausedAt: null,
      sendingPausedReason: null,
      health: 100,
      created_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/smtp-pass-1|password/);

    const stored = (await storedInbox(res.body.inbox.id)) as unknown as { smtp: { passwordSealed: string } };
    expect(JSON.stringify(stored)).not.toContain('smtp-pass-1');
    expect(stored.smtp.passwordSealed).toMatch(/^v1:/);
    expect(openSecret(stored.smtp.passwordSealed)).toBe('smtp-pass-1');
  });

  it("answers 400 naming smtp with the server's answer when the login is refused, storing nothing", async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/outreach/inboxes', { key: apiKey, body: inboxBody({ smtp: smtpLogin('wrong') }) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'smtp' });
    expect(res.body.error).toContain('535 5.7.8 Authentication credentials invalid');
    expect(JSON.stringify(res.body)).not.toContain('wrong');
    expect((await server.request('GET', '/api/outreach/inboxes', { key: apiKey })).body.inboxes).toEqual([]);
  });

  it('answers 400 naming imap when the IMAP login is refused or nothing listens there', async () => {
    const { apiKey } = await createTestWorkspace();
    const imap = { host: '127.0.0.1', port: imapPort, secure: false, user: 'ada', password: 'imap-pass' };
    const refused = await server.request('POST', '/api/outreach/inboxes', { key: apiKey, body: inboxBody({ imap }) });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'validation_failed', field: 'imap' });
    expect(refused.body.error).toContain('AUTHENTICATIONFAILED');

    const closed = await server.request('POST', '/api/outreach/inboxes', {
      key: apiKey,
      body: inboxBody({ imap: { ...imap, port: await freePort() } }),
    });
    expect(closed.status).toBe(400);
    expect(closed.body).toMatchObject({ code: 'validation_failed', field: 'imap' });
    expect(closed.body.error).toContain('ECONNREFUSED');
  });

  it('stores IMAP settings unverified when verify is false, sealed like the SMTP password', async () => {
    const { apiKey } = await createTestWorkspace();
    const imap = { host: 'imap.acme.test', user: 'ada', password: 'imap-pass-2' };
    const inbox = await createInbox(apiKey, {
      imap,
      verify: false,
      smtp: { ...smtpLogin('not-checked'), host: 'smtp.acme.test', port: 465, secure: undefined },
    });
    expect(inbox.smtp).toEqual({ host: 'smtp.acme.test', port: 465, secure: true, user: 'sender' });
    expect(inbox.imap).toEqual({ host: 'imap.acme.test', port: 993, secure: true, user: 'ada', mailbox: 'INBOX' });
    const stored = JSON.stringify(await storedInbox(inbox.id));
    expect(stored).not.toMatch(/imap-pass-2|not-checked/);
  });

  it('refuses a host the outbound guard refuses, without connecting', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/outreach/inboxes', {
      key: apiKey,
      body: inboxBody({ smtp: { ...smtpLogin(), host: '169.254.169.254' } }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'smtp.host' });
  });

  it('answers 400 naming the field for bad input', async () => {
    const { apiKey } = await createTestWorkspace();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ dailyLimit: 0 }, 'dailyLimit'],
      [{ dailyLimit: 2001 }, 'dailyLimit'],
      [{ from: 'not an address' }, 'from'],
      [{ name: ' ' }, 'name'],
      [{ smtp: { ...smtpLogin(), port: 0 } }, 'smtp.port'],
      [{ smtp: { ...smtpLogin(), password: '' } }, 'smtp.password'],
      [{ imap: { host: 'imap.acme.test' } }, 'imap.user'],
      [{ spare: true }, 'spare'],
    ];
    for (const [extra, field] of cases) {
      const res = await server.request('POST', '/api/outreach/inboxes', { key: apiKey, body: inboxBody({ verify: false, ...extra }) });
      expect([res.status, res.body.field], JSON.stringify(extra)).toEqual([400, field]);
    }
  });

  it("answers 404 naming brand_id for another workspace's brand", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const res = await server.request('POST', '/api/outreach/inboxes', {
      key: mine.apiKey,
      body: inboxBody({ brand_id: theirs.brandId, verify: false }),
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', field: 'brand_id' });
  });
});

describe('listing inboxes', () => {
  it("shows the credential's brand by default; brand= narrows, brand=all widens", async () => {
    const workspace: TestWorkspace = await createTestWorkspace();
    const second = (await server.request('POST', '/api/brands', { key: workspace.apiKey, body: { name: 'Second' } })).body.brand.id;
    const inDefault = await createInbox(workspace.apiKey, { verify: false, name: 'Default one' });
    const inSecond = await createInbox(workspace.apiKey, { verify: false, name: 'Second one', brand_id: second });
    const boundKey = (await createOwnerKey(workspace.workspaceId, 'bound', ['read', 'write'], second)).apiKey;

    const names = async (query: string, key = workspace.apiKey) => {
      const res = await server.request('GET', `/api/outreach/inboxes${query}`, { key });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toMatch(/smtp-pass-1|password/);
      return res.body.inboxes.map((inbox: { name: string }) => inbox.name);
    };
    expect(await names('')).toEqual(['Default one']);
    expect(await names('', boundKey)).toEqual(['Second one']);
    expect(await names(`?brand=${second}`)).toEqual(['Second one']);
    expect(await names('?brand=all')).toEqual(['Default one', 'Second one']);
    expect(inDefault.brand_id).toBe(workspace.brandId);
    expect(inSecond.brand_id).toBe(second);

    const foreign = await server.request('GET', `/api/outreach/inboxes?brand=${(await createTestWorkspace()).brandId}`, {
      key: workspace.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.field).toBe('brand');
  });
});

describe('changing an inbox', () => {
  it('logs in again with changed SMTP settings, keeping the stored password unless a new one is given', async () => {
    const { apiKey } = await createTestWorkspace();
    const inbox = await createInbox(apiKey);
    const patch = (body: Record<string, unknown>) => server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key: apiKey, body });

    const wrong = await patch({ smtp: { password: 'wrong' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ field: 'smtp', error: expect.stringContaining('535') });
    // The stored password still opens the account: a change of user alone logs in with it.
    const renamed = await patch({ name: 'Renamed', smtp: { user: 'sender' }, dailyLimit: 100 });
    expect(renamed.status).toBe(200);
    expect(renamed.body.inbox).toMatchObject({ name: 'Renamed', dailyLimit: 100, cap: 100 });
    expect(JSON.stringify(renamed.body)).not.toMatch(/smtp-pass-1|password/);

    const unchecked = await patch({ smtp: { password: 'new-pass-3' }, verify: false });
    expect(unchecked.status).toBe(200);
    const stored = (await storedInbox(inbox.id)) as unknown as { smtp: { passwordSealed: string } };
    expect(openSecret(stored.smtp.passwordSealed)).toBe('new-pass-3');
  });

  it('adds IMAP settings only whole, and removes them with null', async () => {
    const { apiKey } = await createTestWorkspace();
    const inbox = await createInbox(apiKey, { verify: false });
    const patch = (body: Record<string, unknown>) =>
      server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key: apiKey, body: { verify: false, ...body } });
    const partial = await patch({ imap: { host: 'imap.acme.test' } });
    expect(partial.status).toBe(400);
    expect(partial.body.issues.map((issue: { field: string }) => issue.field)).toEqual(['imap.user', 'imap.password']);
    const added = await patch({ imap: { host: 'imap.acme.test', user: 'ada', password: 'imap-pass-4' } });
    expect(added.body.inbox.imap).toEqual({ host: 'imap.acme.test', port: 993, secure: true, user: 'ada', mailbox: 'INBOX' });
    expect((await patch({ imap: { mailbox: 'Replies' } })).body.inbox.imap.mailbox).toBe('Replies');
    expect((await patch({ imap: null })).body.inbox.imap).toBeNull();
  });

  it("answers 404 for another workspace's inbox, on PATCH and DELETE", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const inbox = await createInbox(theirs.apiKey, { verify: false });
    for (const id of [inbox.id, randomUUID()]) {
      expect((await server.request('PATCH', `/api/outreach/inboxes/${id}`, { key: mine.apiKey, body: { name: 'Mine now' } })).status).toBe(
        404,
      );
      expect((await server.request('DELETE', `/api/outreach/inboxes/${id}`, { key: mine.apiKey })).status).toBe(404);
    }
    expect((await server.request('GET', '/api/outreach/inboxes', { key: theirs.apiKey })).body.inboxes[0].name).toBe("Ada's inbox");
  });
});

describe('deleting an inbox', () => {
  it('is refused with 409 naming the active campaigns that send from it, and done once none does', async () => {
    const { apiKey, workspaceId, brandId } = await createTestWorkspace();
    const inbox = await createInbox(apiKey, { verify: false });
    // A campaign record as the campaigns domain stores one: only its status and inboxes matter here.
    const campaigns = mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>('outreach_campaigns');
    const campaignId = randomUUID();
    await campaigns.insertOne({
      _id: campaignId,
      workspaceId,
      brandId,
      name: 'Spring push',
      status: 'active',
      sequenceId: randomUUID(),
      inboxIds: [inbox.id],
    });

    const refused = await server.request('DELETE', `/api/outreach/inboxes/${inbox.id}`, { key: apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', error: expect.stringContaining('Spring push') });

    await campaigns.updateOne({ _id: campaignId }, { $set: { status: 'paused' } });
    const deleted = await server.request('DELETE', `/api/outreach/inboxes/${inbox.id}`, { key: apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: true, id: inbox.id });
    expect((await server.request('GET', '/api/outreach/inboxes', { key: apiKey })).body.inboxes).toEqual([]);
    expect(await storedInbox(inbox.id)).toBeNull();
  });
});
