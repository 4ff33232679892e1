import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { createInbox, mailTo, outreachEnv } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const message = { subject: 'Quick question', body_html: '<p>Hi <strong>there</strong><script>alert(1)</script></p>' };

async function sender(inbox: Record<string, unknown> = {}) {
  const { apiKey: key } = await createTestWorkspace('starter');
  return { key, inbox: await createInbox(server, key, smtp, inbox) };
}

const send = (key: string, body: Record<string, unknown>) => server.request('POST', '/api/outreach/send', { key, body });
const sent24h = async (key: string, inboxId: string) =>
  (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes.find((i: { id: string }) => i.id === inboxId).sent24h;

describe('POST /api/outreach/send', () => {
  it('sends one message to a lead, sanitized, with an unsubscribe link, and records it', async () => {
    const { key, inbox } = await sender();
    const [lead] = await importLeads(server, key, [{ email: 'one@x.test' }]);
    const res = await send(key, { inbox_id: inbox.id, lead_id: lead!.id, ...message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [mail] = mailTo(smtp, 'one@x.test');
    expect(res.body.message).toMatchObject({
      status: 'sent',
      to: 'one@x.test',
      subject: 'Quick question',
      inbox_id: inbox.id,
      lead_id: lead!.id,
      message_id: mail!.parsed.messageId,
      sent_at: expect.any(String),
    });
    expect(mail!.parsed.html).toContain('<p>Hi <strong>there</strong></p>');
    expect(mail!.raw).not.toContain('<script>');
    expect(mail!.header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect((await server.request('GET', `/api/leads/${lead!.id}`, { key })).body.lead.status).toBe('contacted');
    expect(await sent24h(key, inbox.id)).toBe(1);
  });

  it('takes smtp_config_id for the inbox and a bare address', async () => {
    const { key, inbox } = await sender();
    const res = await send(key, { smtp_config_id: inbox.id, to: 'bare@x.test', ...message });
    expect(res.status).toBe(200);
    expect(res.body.message.lead_id).toBeNull();
    expect(mailTo(smtp, 'bare@x.test')).toHaveLength(1);
  });

  it('refuses a suppressed address with 422 suppressed, before any connection', async () => {
    const { key, inbox } = await sender();
    await server.request('POST', '/api/outreach/suppressions', { key, body: { entries: ['@blocked.test'] } });
    const res = await send(key, { inbox_id: inbox.id, to: 'Someone@Blocked.test', ...message });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'suppressed', field: 'to' });
    expect(smtp.attempts('someone@blocked.test')).toBe(0);
  });

  it('answers 409 inbox_cap_reached once the inbox sent its cap in the rolling 24 hours', async () => {
    const { key, inbox } = await sender({ dailyLimit: 1 });
    expect((await send(key, { inbox_id: inbox.id, to: 'first@x.test', ...message })).status).toBe(200);
    const res = await send(key, { inbox_id: inbox.id, to: 'second@x.test', ...message });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'inbox_cap_reached', field: 'inbox_id' });
    expect(smtp.attempts('second@x.test')).toBe(0);
  });

  it('answers 422 message_rejected for a recipient refused for good, and suppresses it', async () => {
    const { key, inbox } = await sender();
    smtp.script('nobody@x.test', 'reject');
    const res = await send(key, { inbox_id: inbox.id, to: 'nobody@x.test', ...message });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('message_rejected');
    expect(res.body.error).toContain('5.1.1');
    const again = await send(key, { inbox_id: inbox.id, to: 'nobody@x.test', ...message });
    expect(again.body.code).toBe('suppressed');
  });

  it('answers 503 smtp_unavailable for a temporary failure, and gives the slot back', async () => {
    const { key, inbox } = await sender();
    smtp.script('busy@x.test', 'tempfail');
    const res = await send(key, { inbox_id: inbox.id, to: 'busy@x.test', ...message });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('smtp_unavailable');
    expect(await sent24h(key, inbox.id)).toBe(0);
  });

  it("names the field for bad input, 404s another workspace's inbox, and needs a paid plan", async () => {
    const { key, inbox } = await sender();
    const both = await send(key, { inbox_id: inbox.id, to: 'a@x.test', lead_id: inbox.id, ...message });
    expect(both.status).toBe(400);
    expect(both.body.field).toBe('to');
    const noInbox = await send(key, { to: 'a@x.test', ...message });
    expect(noInbox.body.field).toBe('inbox_id');
    const other = await createTestWorkspace('starter');
    const foreign = await send(other.apiKey, { inbox_id: inbox.id, to: 'a@x.test', ...message });
    expect(foreign.status).toBe(404);
    expect(foreign.body.field).toBe('inbox_id');
    const free = await createTestWorkspace('free');
    const locked = await send(free.apiKey, { inbox_id: inbox.id, to: 'a@x.test', ...message });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('outreach_locked');
  });
});
