import mongoose from 'mongoose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { recordEmailValidations } from '../../src/leads/lead-validation.service.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useImapServer } from '../support/imap-server.ts';
import { importLeads } from '../support/leads.ts';
import {
  createCampaign,
  createInbox,
  createSequence,
  enroll,
  mailTo,
  outreachEnv,
  unsubscribePath,
  updateCampaign,
} from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/** GET /api/leads/{id}/activity: what each flow wrote as it happened, over a real SMTP server and a real Dovecot. */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
const imap = useImapServer({ story: 'secret' });
const clock = useTestClock();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

type Entry = {
  id: string;
  type: string;
  at: string;
  campaign_id: string | null;
  message_id: string | null;
  step: number | null;
  data: any;
};
const activity = async (key: string, leadId: string, query = '') => {
  const res = await server.request('GET', `/api/leads/${leadId}/activity${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { activity: Entry[]; next_cursor: string | null };
};
const types = async (key: string, leadId: string) => (await activity(key, leadId)).activity.map((entry) => entry.type);
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toUTCString().replace('GMT', '+0000');

describe('GET /api/leads/{id}/activity', () => {
  it("tells a lead's story newest first, each fact written by the flow that caused it", async () => {
    const { apiKey: key, workspaceId } = await createTestWorkspace('starter');
    const from = 'story@acme.test';
    const inbox = await createInbox(server, key, smtp, {
      from,
      imap: { host: imap.host, port: imap.port, secure: false, user: 'story', password: 'secret' },
    });
    const sequence = await createSequence(server, key, [{ subject: 'Hello', body_html: '<p>Hi</p>' }]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id], track_opens: true });
    const [ada, bob, cy] = await importLeads(server, key, [{ email: 'ada@x.test' }, { email: 'bob@y.test' }, { email: 'cy@z.test' }]);
    const patched = await server.request('PATCH', `/api/leads/${ada!.id}`, { key, body: { field: 'title', value: 'CTO' } });
    expect(patched.status).toBe(200);
    await recordEmailValidations(workspaceId, [
      {
        lead: { id: ada!.id, email: 'ada@x.test' },
        validation: {
          email_status: 'valid',
          email_provider: 'other',
          email_is_role: false,
          email_is_free: false,
          email_validated_at: new Date(),
        },
      },
    ]);
    await enroll(server, key, campaign.id, [ada!.id, bob!.id, cy!.id]);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    smtp.script('bob@y.test', 'reject');
    await runOutreachPass();
    const [mail] = mailTo(smtp, 'ada@x.test');
    const pixel = /src="([^"]+\/o\/[^"]+)"/.exec(mail!.parsed.html as string)![1]!;
    expect((await fetch(`${server.baseUrl}${new URL(pixel).pathname}`)).status).toBe(200);
    await imap.append(
      'story',
      [
        `From: ada@x.test`,
        `To: ${from}`,
        'Subject: Re: Hello',
        `In-Reply-To: ${mail!.parsed.messageId}`,
        'Message-ID: <ada-1@x.test>',
        `Date: ${later(1)}`,
        '',
        'Tell me more.',
        '',
      ].join('\r\n'),
    );
    await readMailboxes();
    const [reply] = (await server.request('GET', '/api/outreach/replies', { key })).body.replies;
    clock.advance(2 * 60_000);
    const answered = await server.request('POST', `/api/outreach/replies/${reply.id}/reply`, { key, body: { body_html: '<p>Sure.</p>' } });
    expect(answered.status).toBe(201);

    const { activity: story, next_cursor } = await activity(key, ada!.id);
    expect(next_cursor).toBeNull();
    expect(story.map((entry) => entry.type)).toEqual([
      'outreach.reply.sent',
      'outreach.reply.received',
      'outreach.email.opened',
      'outreach.email.sent',
      'outreach.enrolled',
      'lead.validated',
      'lead.updated',
      'lead.created',
    ]);
    const byType = Object.fromEntries(story.map((entry) => [entry.type, entry]));
    expect(byType['lead.created']!.data).toEqual({ source: 'api' });
    expect(byType['lead.updated']!.data).toEqual({ fields: ['title'] });
    expect(byType['lead.validated']!.data).toMatchObject({ email_status: 'valid' });
    expect(byType['outreach.enrolled']).toMatchObject({ campaign_id: campaign.id });
    const sentId = byType['outreach.email.sent']!.message_id;
    expect(byType['outreach.email.sent']).toMatchObject({ campaign_id: campaign.id, step: 0, variant: 0 });
    expect(byType['outreach.email.opened']).toMatchObject({ campaign_id: campaign.id, message_id: sentId, step: 0 });
    expect(byType['outreach.reply.received']).toMatchObject({ campaign_id: campaign.id, message_id: sentId, data: { reply_id: reply.id } });
    expect(byType['outreach.reply.sent']).toMatchObject({ message_id: answered.body.message.id, data: { reply_id: reply.id } });
    const times = story.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    // Refused at RCPT: bounced. The unsubscribe link: unsubscribed. Removed from the campaign: removed.
    expect((await types(key, bob!.id)).slice(0, 1)).toEqual(['outreach.email.bounced']);
    const [cyMail] = mailTo(smtp, 'cy@z.test');
    const unsubscribed = await fetch(`${server.baseUrl}${unsubscribePath(cyMail!)}`, { method: 'POST' });
    expect(unsubscribed.status).toBe(200);
    expect((await types(key, cy!.id)).slice(0, 1)).toEqual(['outreach.unsubscribed']);
    expect((await activity(key, cy!.id)).activity[0]!.data).toEqual({ source: 'unsubscribe_link' });
  });

  it('pages with limit and cursor, 404s unknown and foreign leads, refuses a bad cursor, and goes with the lead', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const [lead] = await importLeads(server, key, [{ email: 'pages@x.test' }]);
    for (const title of ['A', 'B', 'C', 'D'])
      await server.request('PATCH', `/api/leads/${lead!.id}`, { key, body: { field: 'title', value: title } });
    const all = (await activity(key, lead!.id)).activity;
    expect(all).toHaveLength(5);
    const paged: Entry[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await activity(key, lead!.id, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.activity.length).toBeLessThanOrEqual(2);
      paged.push(...page.activity);
      cursor = page.next_cursor;
    }
    expect(paged.map((entry) => entry.id)).toEqual(all.map((entry) => entry.id));

    const bad = await server.request('GET', `/api/leads/${lead!.id}/activity?cursor=nonsense`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('cursor');
    expect((await server.request('GET', `/api/leads/${crypto.randomUUID()}/activity`, { key })).status).toBe(404);
    const other = await createTestWorkspace('starter');
    expect((await server.request('GET', `/api/leads/${lead!.id}/activity`, { key: other.apiKey })).status).toBe(404);

    const deleted = await server.request('DELETE', '/api/leads', { key, body: { ids: [lead!.id] } });
    expect(deleted.status).toBe(200);
    expect((await server.request('GET', `/api/leads/${lead!.id}/activity`, { key })).status).toBe(404);
    expect(await mongoose.connection.collection('lead_activity').countDocuments({ leadId: lead!.id })).toBe(0);
  });
});
