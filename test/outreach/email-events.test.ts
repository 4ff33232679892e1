import mongoose from 'mongoose';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
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
import { useSmtpServer, type ReceivedMail } from '../support/smtp-server.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * outreach.email.* events as webhook endpoints receive them, and endpoints limited to campaigns: a real SMTP server,
 * a receiver on loopback, the API and a worker (the event dispatcher) in this process.
 */
const receiver = useWebhookReceiver();
const server = useApiServer(outreachEnv, { worker: true });
const smtp = useSmtpServer();

beforeEach(() => {
  smtp.reset();
  receiver.reset();
});
afterAll(closeTransports);

const emailEvents = ['outreach.email.sent', 'outreach.email.opened', 'outreach.email.clicked', 'outreach.lead.unsubscribed'];
const site = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, { redirect: 'manual', ...init });
const linkIn = (mail: ReceivedMail, pattern: RegExp) =>
  new URL([...String(mail.parsed.html).matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!).find((url) => pattern.test(url))!).pathname;

async function createHook(key: string, body: Record<string, unknown>) {
  const res = await server.request('POST', '/api/webhooks', { key, body: { url: receiver.url, events: emailEvents, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { webhook: { id: string; campaign_ids: string[] | null }; secret: string };
}

/** Waits until the campaign's statistics count the opens and clicks (a click is stored after its redirect). */
async function recorded(key: string, campaignId: string, totals: { opened: number; clicked: number }) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await server.request('GET', `/api/outreach/campaigns/${campaignId}/stats`, { key });
    if (res.body.totals?.opened === totals.opened && res.body.totals?.clicked === totals.clicked) return;
    if (Date.now() > deadline) throw new Error(`the statistics did not reach ${JSON.stringify(totals)}: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The deliveries of an endpoint once `count` are there (and, a moment later, still no more). */
async function deliveredTypes(key: string, id: string, count: number): Promise<string[]> {
  const read = async () =>
    (await server.request('GET', `/api/webhooks/${id}/deliveries`, { key })).body.deliveries as Array<{ event_type: string }>;
  const deadline = Date.now() + 20_000;
  while ((await read()).length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} deliveries in 20 s: ${JSON.stringify(await read())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return (await read()).map((delivery) => delivery.event_type).sort();
}

describe('outreach.email events and webhooks limited to campaigns', () => {
  it('take campaign_ids that must be the workspace’s, show them on read, and drop them with null', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const other = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, [{ subject: 'Hi', body_html: '<p>Hi</p>' }]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });

    for (const ids of [[campaign.id, '7c9e6679-7425-40de-944b-e07fc1f90ae7'], [campaign.id]]) {
      const refused = await server.request('POST', '/api/webhooks', {
        key: ids.length === 1 ? other.apiKey : key,
        body: { url: receiver.url, events: ['*'], campaign_ids: ids },
      });
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ code: 'not_found', field: 'campaign_ids' });
    }
    const repeated = await server.request('POST', '/api/webhooks', {
      key,
      body: { url: receiver.url, events: ['*'], campaign_ids: [campaign.id, campaign.id] },
    });
    expect(repeated.status).toBe(400);
    expect(JSON.stringify(repeated.body)).toContain('campaign_ids');

    const { webhook } = await createHook(key, { campaign_ids: [campaign.id] });
    expect(webhook.campaign_ids).toEqual([campaign.id]);
    expect((await server.request('GET', `/api/webhooks/${webhook.id}`, { key })).body.webhook.campaign_ids).toEqual([campaign.id]);
    const widened = await server.request('PATCH', `/api/webhooks/${webhook.id}`, { key, body: { campaign_ids: null } });
    expect(widened.body.webhook.campaign_ids).toBeNull();
    expect((await server.request('GET', '/api/webhooks', { key })).body.webhooks[0].campaign_ids).toBeNull();
    const foreign = await server.request('PATCH', `/api/webhooks/${webhook.id}`, {
      key: other.apiKey,
      body: { campaign_ids: [campaign.id] },
    });
    expect(foreign.status).toBe(404);
    const narrowed = await server.request('PATCH', `/api/webhooks/${webhook.id}`, { key, body: { campaign_ids: [campaign.id] } });
    expect(narrowed.body.webhook.campaign_ids).toEqual([campaign.id]);
  });

  it("deliver sent, first opened and first clicked events with the message's facts, each endpoint the campaigns it is limited to", async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, [
      { subject: 'Hello', body_html: '<p>Hi, see <a href="https://acme.test/offer">the offer</a>.</p>' },
    ]);
    const [x, y] = await importLeads(server, key, [{ email: 'x@events.test' }, { email: 'y@events.test' }]);
    const campaigns = [];
    for (const lead of [x!, y!]) {
      const campaign = await createCampaign(server, key, {
        sequence_id: sequence.id,
        inbox_ids: [inbox.id],
        track_opens: true,
        track_clicks: true,
      });
      await enroll(server, key, campaign.id, [lead.id]);
      campaigns.push(campaign);
    }
    const [a, b] = campaigns;
    const onlyA = await createHook(key, { campaign_ids: [a.id] });
    const every = await createHook(key, {});

    for (const campaign of campaigns) await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    const direct = await server.request('POST', '/api/outreach/send', {
      key,
      body: { inbox_id: inbox.id, to: 'direct@events.test', subject: 'One off', body_html: '<p>Hi</p>' },
    });
    expect(direct.status, JSON.stringify(direct.body)).toBe(200);
    const [toX, toY] = [mailTo(smtp, 'x@events.test')[0]!, mailTo(smtp, 'y@events.test')[0]!];
    for (let n = 0; n < 2; n++) {
      expect((await site(linkIn(toX, /\/o\//))).status).toBe(200);
      expect((await site(linkIn(toX, /\/c\//))).status).toBe(302);
    }
    expect((await site(linkIn(toY, /\/o\//))).status).toBe(200);
    const unsubscribed = await site(unsubscribePath(toY), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.status).toBe(200);

    // Every endpoint: each message's sent event (the direct send's too), each first open, the first click of the link.
    expect(await deliveredTypes(key, every.webhook.id, 7)).toEqual([
      'outreach.email.clicked',
      'outreach.email.opened',
      'outreach.email.opened',
      'outreach.email.sent',
      'outreach.email.sent',
      'outreach.email.sent',
      'outreach.lead.unsubscribed',
    ]);
    // Limited to campaign A: nothing about B's message; events naming no campaign (the direct send, an unsubscription) as subscribed.
    expect(await deliveredTypes(key, onlyA.webhook.id, 5)).toEqual([
      'outreach.email.clicked',
      'outreach.email.opened',
      'outreach.email.sent',
      'outreach.email.sent',
      'outreach.lead.unsubscribed',
    ]);

    const received = receiver.received
      .filter((delivery) => {
        try {
          return Boolean(new Verifier(onlyA.secret).verify(delivery.body, delivery.headers as Record<string, string>));
        } catch {
          return false;
        }
      })
      .map((delivery) => JSON.parse(delivery.body) as { type: string; data: Record<string, unknown> });
    const facts = { message_id: toX.parsed.messageId, campaign_id: a.id, lead_id: x!.id, inbox_id: inbox.id, step: 0, variant: 0 };
    const of = (type: string) => received.filter((event) => event.type === type);
    expect(of('outreach.email.sent').find((event) => event.data.campaign_id === a.id)!.data).toEqual({ ...facts, at: expect.any(String) });
    expect(of('outreach.email.sent').find((event) => event.data.campaign_id === null)!.data).toMatchObject({
      message_id: direct.body.message.message_id,
      lead_id: null,
      step: null,
      variant: null,
    });
    expect(of('outreach.email.opened')[0]!.data).toEqual({ ...facts, at: expect.any(String) });
    expect(of('outreach.email.clicked')[0]!.data).toEqual({ ...facts, url: 'https://acme.test/offer', at: expect.any(String) });
    expect(received.some((event) => event.data.campaign_id === b.id)).toBe(false);
  });

  it('are stored only while an enabled endpoint of the workspace would receive them', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, [
      { subject: 'Hello', body_html: '<p>See <a href="https://acme.test/quiet">this</a>.</p>' },
    ]);
    const [quiet, heard] = await importLeads(server, key, [{ email: 'quiet@events.test' }, { email: 'heard@events.test' }]);
    const campaign = await createCampaign(server, key, {
      sequence_id: sequence.id,
      inbox_ids: [inbox.id],
      track_opens: true,
      track_clicks: true,
    });
    const stored = async () =>
      (
        await mongoose.connection
          .collection<{ _id: string; type: string; data: { lead_id: string } }>('events')
          .find({ type: { $in: emailEvents.slice(0, 3) }, 'data.campaign_id': campaign.id })
          .toArray()
      ).map((event) => `${event.type} ${event.data.lead_id}`);

    // No endpoint: the message goes, is opened and clicked, and no outbox entry is written for any of it.
    await enroll(server, key, campaign.id, [quiet!.id]);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    const toQuiet = mailTo(smtp, 'quiet@events.test')[0]!;
    expect((await site(linkIn(toQuiet, /\/o\//))).status).toBe(200);
    expect((await site(linkIn(toQuiet, /\/c\//))).status).toBe(302);
    await recorded(key, campaign.id, { opened: 1, clicked: 1 });
    expect(await stored()).toEqual([]);

    // A disabled endpoint and one for other campaigns hear nothing either; an endpoint for opens hears the open alone.
    const other = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    await createHook(key, { campaign_ids: [other.id] });
    const disabled = await createHook(key, {});
    expect((await server.request('PATCH', `/api/webhooks/${disabled.webhook.id}`, { key, body: { enabled: false } })).status).toBe(200);
    const opens = await createHook(key, { events: ['outreach.email.opened'] });
    await enroll(server, key, campaign.id, [heard!.id]);
    await runOutreachPass();
    const toHeard = mailTo(smtp, 'heard@events.test')[0]!;
    expect((await site(linkIn(toHeard, /\/o\//))).status).toBe(200);
    expect((await site(linkIn(toHeard, /\/c\//))).status).toBe(302);
    expect(await deliveredTypes(key, opens.webhook.id, 1)).toEqual(['outreach.email.opened']);
    expect(await stored()).toEqual([`outreach.email.opened ${heard!.id}`]);
  });
});
