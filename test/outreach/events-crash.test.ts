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
  getCampaign,
  mailTo,
  outreachEnv,
  unsubscribePath,
  updateCampaign,
} from '../support/outreach.ts';
import { freePort, startService } from '../support/processes.ts';
import { useSmtpServer } from '../support/smtp-server.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * A change whose process is killed (SIGKILL) after writing it and before storing its event
 * (test/support/crashing-service.ts kills it there): the inbox's pause by the bounce guard, the campaign's completion,
 * the lead's unsubscription. The API runs here, and the sending engine's next pass runs here too, on its database;
 * the dying worker or API is a process of its own.
 */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
const receiver = useWebhookReceiver();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const processEnv = () => ({
  ...outreachEnv,
  MONGODB_URI: server.databaseUri,
  SECRETS_KEY: testSecretsKey,
  LOG_LEVEL: 'error',
  OUTREACH_TICK_MS: '200',
  // A small sample for the bounce guard, so four sends show it working.
  BOUNCE_GUARD_MIN_SENDS: '4',
  // The dead worker's turn at the event outbox passes on as soon.
  WEBHOOK_LOCK_LIFETIME_MS: '2000',
});

/** A worker that kills itself at `crash` (the variables of crashing-service.ts). */
const workerDyingAt = (crash: Record<string, string>) =>
  startService(process.execPath, ['test/support/crashing-service.ts', 'worker'], { ...processEnv(), PORT: '0', ...crash }, null);

/** Sends `path` a one-click unsubscribe POST (RFC 8058) at `baseUrl`. */
const oneClick = (baseUrl: string, path: string) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });

const eventsAbout = (type: string, id: string) => mongoose.connection.db!.collection('events').find({ type, 'data.id': id }).toArray();

const oneStep = [{ subject: 'Hi', body_html: '<p>Hello</p>' }];

/** A campaign of one step from a new inbox to `emails`, not yet active. */
async function campaignFor(emails: string[]) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp);
  const sequence = await createSequence(server, key, oneStep);
  const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
  const leads = await importLeads(
    server,
    key,
    emails.map((email) => ({ email })),
  );
  await enroll(
    server,
    key,
    campaign.id,
    leads.map((lead) => lead.id),
  );
  return { key, inbox, campaign, leads };
}

describe('a worker killed between a change and its event', () => {
  it("has a campaign's completion announced by the next pass, once, and delivered once", async () => {
    const { key, campaign } = await campaignFor(['done@x.test']);
    const hook = await server.request('POST', '/api/webhooks', {
      key,
      body: { url: receiver.url, events: ['outreach.campaign.completed'] },
    });
    expect(hook.status).toBe(201);
    receiver.reset();
    const crashing = await workerDyingAt({ CRASH_AFTER_SETTING: 'Campaign:completed' });
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    expect(await crashing.exited, crashing.output()).toBe('SIGKILL');
    expect(mailTo(smtp, 'done@x.test')).toHaveLength(1);
    expect((await getCampaign(server, key, campaign.id)).status).toBe('completed');
    expect(await eventsAbout('outreach.campaign.completed', campaign.id)).toHaveLength(0);

    // The next pass stores the event; a pass after it, none more.
    await runOutreachPass();
    await runOutreachPass();
    const events = await eventsAbout('outreach.campaign.completed', campaign.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ id: campaign.id, status: 'completed' });

    const worker = await startService(process.execPath, ['src/main.ts', 'worker'], { ...processEnv(), PORT: '0' }, null);
    try {
      const [delivery] = await receiver.waitFor(1, 30_000);
      expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'outreach.campaign.completed', data: { id: campaign.id } });
      expect(delivery!.headers['webhook-id']).toBe(events[0]!._id);
    } finally {
      await worker.stop();
    }
    expect(receiver.received).toHaveLength(1);
  }, 60_000);

  it("has an inbox's pause by the bounce guard announced by the next pass, once", async () => {
    smtp.script('b1@x.test', 'reject');
    const { key, inbox, campaign } = await campaignFor(['b1@x.test', 'a1@x.test', 'a2@x.test', 'a3@x.test']);
    const crashing = await workerDyingAt({ CRASH_AFTER_SETTING_FIELD: 'Inbox:sendingPausedAt' });
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    expect(await crashing.exited, crashing.output()).toBe('SIGKILL');
    const listed = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes[0];
    expect(listed).toMatchObject({
      id: inbox.id,
      sendingPausedAt: expect.any(String),
      sendingPausedReason: expect.stringContaining('1 bounces in 4 sends'),
    });
    expect(await eventsAbout('outreach.inbox.paused', inbox.id)).toHaveLength(0);

    await runOutreachPass();
    await runOutreachPass();
    const events = await eventsAbout('outreach.inbox.paused', inbox.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ id: inbox.id, sendingPausedAt: listed.sendingPausedAt });
    expect(smtp.received).toHaveLength(3);
  }, 60_000);
});

describe('an API process killed between a lead unsubscribing and its event', () => {
  /** A lead its campaign wrote to, unsubscribed by its link through an API process that dies at `crash`. */
  async function unsubscribedByDyingApi(
    email: string,
    crash: Record<string, string> = { CRASH_AFTER_SETTING_FIELD: 'Lead:unsubscribedAt' },
  ) {
    const { key, campaign, leads } = await campaignFor([email]);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    const [mail] = mailTo(smtp, email);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const api = await startService(
      process.execPath,
      ['test/support/crashing-service.ts', 'api'],
      { ...processEnv(), PORT: String(port), HOST: '127.0.0.1', ...crash },
      `${url}/healthz`,
    );
    const path = unsubscribePath(mail!);
    await expect(oneClick(url, path)).rejects.toThrow();
    expect(await api.exited, api.output()).toBe('SIGKILL');
    const lead = leads[0]!;
    expect((await server.request('GET', `/api/leads/${lead.id}`, { key })).body.lead.unsubscribed_at).toEqual(expect.any(String));
    return { key, lead, path };
  }

  it('has the event stored by the next unsubscribe request for the lead, once', async () => {
    const { key, lead, path } = await unsubscribedByDyingApi('again@x.test');
    expect(await eventsAbout('outreach.lead.unsubscribed', lead.id)).toHaveLength(0);
    for (let request = 0; request < 2; request++) {
      const res = await oneClick(server.baseUrl, path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('You are unsubscribed');
    }
    const events = await eventsAbout('outreach.lead.unsubscribed', lead.id);
    expect(events).toHaveLength(1);
    const stored = (await server.request('GET', `/api/leads/${lead.id}`, { key })).body.lead;
    expect(events[0]!.data).toMatchObject({ id: lead.id, email: 'again@x.test', unsubscribed_at: stored.unsubscribed_at });
  }, 60_000);

  it('has the event stored by the next pass of the sending engine when no request comes, once', async () => {
    const { lead } = await unsubscribedByDyingApi('gone@x.test');
    expect(await eventsAbout('outreach.lead.unsubscribed', lead.id)).toHaveLength(0);
    await runOutreachPass();
    await runOutreachPass();
    const events = await eventsAbout('outreach.lead.unsubscribed', lead.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ id: lead.id, unsubscribed_at: expect.any(String) });
  }, 60_000);

  it('killed after storing the event, before clearing its mark: the request and the passes after it store no second', async () => {
    const { lead, path } = await unsubscribedByDyingApi('twice@x.test', { CRASH_BEFORE_UNSETTING: 'Lead:unsubscribeEventPendingAt' });
    const [stored] = await eventsAbout('outreach.lead.unsubscribed', lead.id);
    expect(stored).toBeDefined();
    expect((await oneClick(server.baseUrl, path)).status).toBe(200);
    await runOutreachPass();
    await runOutreachPass();
    const events = await eventsAbout('outreach.lead.unsubscribed', lead.id);
    expect(events.map((event) => event._id)).toEqual([stored!._id]);
  }, 60_000);
});
