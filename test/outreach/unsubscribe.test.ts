import mongoose from 'mongoose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { importLeads } from '../support/leads.ts';
import {
  createCampaign,
  createInbox,
  createSequence,
  enroll,
  getCampaign,
  mailTo,
  outreachEnv,
  unsubscribePath,
  updateCampaign,
} from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
const clock = useTestClock();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const steps = [
  { subject: 'Hi', body_html: '<p>Hello</p>' },
  { wait_days: 1, subject: 'Again', body_html: '<p>Hello again</p>' },
];

/** A lead in two campaigns, each of which sent it its first step. */
async function contactedTwice(email: string) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp);
  const sequence = await createSequence(server, key, steps);
  const [lead] = await importLeads(server, key, [{ email }]);
  const campaigns = [];
  for (const name of ['First', 'Second']) {
    const campaign = await createCampaign(server, key, { name, sequence_id: sequence.id, inbox_ids: [inbox.id], track_opens: true });
    await enroll(server, key, campaign.id, [lead!.id]);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    campaigns.push(campaign);
  }
  await runOutreachPass();
  const mails = mailTo(smtp, email);
  expect(mails).toHaveLength(2);
  return { key, inbox, lead: lead!, campaigns, mail: mails[0]! };
}

const page = (path: string, method = 'GET', init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, { method, ...init });
const oneClick = (path: string) =>
  page(path, 'POST', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });

describe('one-click unsubscribe', () => {
  it('shows a confirmation on GET and changes nothing (link scanners follow GETs)', async () => {
    const { key, lead, mail } = await contactedTwice('scanned@x.test');
    const res = await page(unsubscribePath(mail));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('<form method="post">');
    expect((await server.request('GET', '/api/outreach/suppressions', { key })).body.total).toBe(0);
    expect((await server.request('GET', `/api/leads/${lead.id}`, { key })).body.lead.unsubscribed_at).toBeNull();
  });

  it('on POST suppresses the address, marks the lead and ends its enrollments in every campaign', async () => {
    const { key, lead, campaigns, mail } = await contactedTwice('leaving@x.test');
    const res = await oneClick(unsubscribePath(mail));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    expect((await oneClick(unsubscribePath(mail))).status).toBe(200); // again: nothing changes

    const list = (await server.request('GET', '/api/outreach/suppressions', { key })).body;
    expect(list).toMatchObject({ total: 1, suppressions: [{ email: 'leaving@x.test', reason: 'unsubscribe' }] });
    expect((await server.request('GET', `/api/leads/${lead.id}`, { key })).body.lead.unsubscribed_at).toEqual(expect.any(String));
    for (const campaign of campaigns)
      expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ unsubscribed: 1, active: 0 });
    // One event, however often the link is used, with the lead as its GET answers it.
    const events = await mongoose.connection
      .db!.collection('events')
      .find({ type: 'outreach.lead.unsubscribed', 'data.id': lead.id })
      .toArray();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ id: lead.id, email: 'leaving@x.test', unsubscribed_at: expect.any(String) });

    clock.advance(2 * 24 * 3_600_000);
    await runOutreachPass();
    expect(mailTo(smtp, 'leaving@x.test')).toHaveLength(2);
  });

  it('answers 404 for a token it did not sign, and the token carries no address', async () => {
    const { mail } = await contactedTwice('forged@x.test');
    const path = unsubscribePath(mail);
    const [id, signature] = path.slice('/u/'.length).split('.');
    expect(Buffer.from(id!, 'base64url').toString()).not.toContain('forged');
    const forged = `/u/${id}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await oneClick(forged)).status).toBe(404);
    expect((await page(forged)).status).toBe(404);
    expect((await oneClick('/u/nothing')).status).toBe(404);
  });
});

describe('open tracking', () => {
  it('records the first open of a message when the campaign tracks opens', async () => {
    const { key, inbox, mail } = await contactedTwice('reader@x.test');
    const pixel = /<img src="([^"]+)"/.exec(String(mail.parsed.html))?.[1];
    expect(pixel).toMatch(/\/o\/[\w-]+\.[\w-]+\.gif$/);
    const path = new URL(pixel!).pathname;
    const first = await page(path);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/gif');
    const record = await mongoose.connection.db!.collection('outreach_messages').findOne({ messageId: mail.parsed.messageId });
    expect(record!.openedAt).toEqual(expect.any(Date));
    await page(path);
    const opened = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes.find(
      (i: { id: string }) => i.id === inbox.id,
    );
    expect(opened.opened14d).toBe(1);
  });

  it('adds no pixel when the campaign does not track opens', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, steps);
    const [lead] = await importLeads(server, key, [{ email: 'private@x.test' }]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    await enroll(server, key, campaign.id, [lead!.id]);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    expect(String(mailTo(smtp, 'private@x.test')[0]!.parsed.html)).not.toContain('<img');
  });
});
