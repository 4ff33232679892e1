import { createHmac, hkdfSync } from 'node:crypto';
import mongoose from 'mongoose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
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

/** Click tracking over a real SMTP server: the links a lead receives, the redirects they lead to, the clicks counted. */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const pricing = 'https://acme.test/pricing?plan=pro&seats=5';
const caseStudy = 'https://acme.test/case';
const body =
  '<p>Hi {{first_name|there}}, see <a href="https://acme.test/pricing?plan=pro&amp;seats=5">our pricing</a>, ' +
  '<a href="https://acme.test/case">a case</a> or <a href="mailto:sales@acme.test">write to us</a>.</p>';

/** A campaign (tracking clicks or not) that sent its one step to `email`: the message as received. */
async function sentTo(email: string, track: { track_clicks?: boolean; track_opens?: boolean }) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp);
  const sequence = await createSequence(server, key, [{ subject: 'Hello', body_html: body }]);
  const [lead] = await importLeads(server, key, [{ email, full_name: 'Ada Byron' }]);
  const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id], ...track });
  await enroll(server, key, campaign.id, [lead!.id]);
  await updateCampaign(server, key, { id: campaign.id, status: 'active' });
  await runOutreachPass();
  const [mail] = mailTo(smtp, email);
  expect(mail).toBeDefined();
  return { key, campaign, lead: lead!, mail: mail!, html: String(mail!.parsed.html) };
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
const follow = (path: string, method = 'GET') => fetch(`${server.baseUrl}${path}`, { method, redirect: 'manual' });
const db = () => mongoose.connection.db!;

/** Waits until `count` clicks of the message are stored (they are recorded just after the redirect is answered). */
async function clicksStored(messageId: string, count: number) {
  const record = await db().collection('outreach_messages').findOne({ messageId });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const clicks = await db().collection('outreach_clicks').find({ messageRecordId: record!._id }).toArray();
    if (clicks.length >= count) return clicks;
    if (Date.now() > deadline) throw new Error(`${clicks.length} of ${count} clicks stored in 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The lead's `outreach.email.clicked` activity once `count` entries are there (or what is there after 10 s). */
async function clickedActivity(key: string, leadId: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { activity } = (await server.request('GET', `/api/leads/${leadId}/activity`, { key })).body;
    const clicked = (activity as Array<{ type: string; data: { url: string } }>).filter((entry) => entry.type === 'outreach.email.clicked');
    if (clicked.length >= count || Date.now() > deadline) return clicked;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A click token signed as our links are, under `secretsKey` (HKDF of the key, HMAC of the purpose and the value). */
function tokenUnder(secretsKey: string, recordId: string, url: string) {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secretsKey, 'base64'), Buffer.alloc(0), 'leadops/signing/outreach-links', 32));
  const value = `${recordId}\n${url}`;
  const mac = createHmac('sha256', key).update(`click\n${value}`).digest('base64url').slice(0, 32);
  return `/c/${Buffer.from(value).toString('base64url')}.${mac}`;
}

describe('click tracking', () => {
  it('sends the http links of a campaign with track_clicks through /c/<token>, keeping mailto and unsubscribe links as they are', async () => {
    const { campaign, mail, html } = await sentTo('reader@clicks.test', { track_clicks: true });
    expect(campaign.track_clicks).toBe(true);
    const links = hrefs(html);
    const tracked = links.filter((href) => new URL(href).pathname.startsWith('/c/'));
    expect(tracked).toHaveLength(2);
    expect(links).toContain('mailto:sales@acme.test');
    expect(links.some((href) => href.startsWith('https://acme.test'))).toBe(false);
    // The unsubscribe link (in the body and the header) is not a tracked one, and the text part keeps the addresses.
    expect(links.filter((href) => href.startsWith('mailto:') || new URL(href).pathname.startsWith('/u/'))).toHaveLength(2);
    expect(unsubscribePath(mail)).toMatch(/^\/u\//);
    expect(String(mail.parsed.text)).toContain(pricing);
    // Each redirects to its own address at once.
    const [toPricing, toCase] = tracked.map((href) => new URL(href).pathname);
    const first = await follow(toPricing!);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(pricing);
    expect((await follow(toCase!)).headers.get('location')).toBe(caseStudy);
  });

  it('records every GET, counts each link of a message once, and leaves HEAD and other methods uncounted', async () => {
    const { key, campaign, lead, mail, html } = await sentTo('clicker@clicks.test', { track_clicks: true });
    // An endpoint listening to clicks (no worker here sends to it): their events are stored for it.
    const hook = { url: 'http://127.0.0.1:9/clicks', events: ['outreach.email.clicked'] };
    expect((await server.request('POST', '/api/webhooks', { key, body: hook })).status).toBe(201);
    const [toPricing, toCase] = hrefs(html)
      .filter((href) => href.includes('/c/'))
      .map((href) => new URL(href).pathname);
    expect((await follow(toPricing!, 'HEAD')).status).toBe(302);
    expect((await follow(toPricing!, 'POST')).status).toBe(405);
    for (const path of [toPricing!, toPricing!, toCase!]) expect((await follow(path)).status).toBe(302);

    const clicks = await clicksStored(mail.parsed.messageId!, 3);
    expect(clicks.map((click) => click.url).sort()).toEqual([caseStudy, pricing, pricing]);
    expect(clicks.filter((click) => click.first)).toHaveLength(2);
    const stats = (await server.request('GET', `/api/outreach/campaigns/${campaign.id}/stats`, { key })).body;
    expect(stats.totals).toMatchObject({ sent: 1, clicked: 2, click_rate: 1 });
    expect(stats.steps).toEqual([expect.objectContaining({ step: 0, variant: 0, sent: 1, clicked: 2 })]);
    // One outreach.email.clicked event per link, with its address, however often it was followed.
    const events = await db().collection('events').find({ type: 'outreach.email.clicked', 'data.campaign_id': campaign.id }).toArray();
    expect(events.map((event) => event.data.url).sort()).toEqual([caseStudy, pricing]);
    expect(events[0]!.data).toMatchObject({ message_id: mail.parsed.messageId, step: 0, variant: 0, at: expect.any(String) });
    // Each link's first click is a line in the lead's activity, with its address (written just after the clicks).
    expect((await clickedActivity(key, lead.id, 2)).map((entry) => entry.data.url).sort()).toEqual([caseStudy, pricing]);
    // A HEAD and a POST made no click: three stored, no more, after a pause.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await clicksStored(mail.parsed.messageId!, 3)).toHaveLength(3);
  });

  it('answers 404 for an altered token, a forged one and one signed by another deployment', async () => {
    const { mail, html } = await sentTo('forger@clicks.test', { track_clicks: true });
    const path = new URL(hrefs(html).find((href) => href.includes('/c/'))!).pathname;
    const [value, signature] = path.slice('/c/'.length).split('.');
    const recordId = Buffer.from(value!, 'base64url').toString().split('\n')[0]!;
    // Another address under the same signature: an open redirect is not to be had.
    const altered = `/c/${Buffer.from(`${recordId}\nhttps://evil.test/`).toString('base64url')}.${signature}`;
    expect((await follow(altered)).status).toBe(404);
    expect((await follow(`${path.slice(0, -2)}${path.endsWith('AA') ? 'BB' : 'AA'}`)).status).toBe(404);
    expect((await follow('/c/nothing')).status).toBe(404);
    // Signed as this deployment signs, it is followed; under another secrets key, it is not.
    expect((await follow(tokenUnder(testSecretsKey, recordId, 'https://acme.test/other'))).headers.get('location')).toBe(
      'https://acme.test/other',
    );
    const foreign = await follow(tokenUnder(Buffer.alloc(32, 9).toString('base64'), recordId, caseStudy));
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('location')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await clicksStored(mail.parsed.messageId!, 1)).map((click) => click.url)).toEqual(['https://acme.test/other']);
  });

  it('keeps the links as written when the campaign does not track clicks', async () => {
    const { campaign, html } = await sentTo('private@clicks.test', { track_opens: true });
    expect(campaign.track_clicks).toBe(false);
    const links = hrefs(html);
    expect(links).toEqual(expect.arrayContaining([pricing, caseStudy, 'mailto:sales@acme.test']));
    expect(links.some((href) => href.includes('/c/'))).toBe(false);
  });
});
