import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { debitCredits, setBalances } from '../../src/credits/credits.service.ts';
import { getEvent } from '../../src/events/events.service.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { fanOut } from '../../src/webhooks/deliveries.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { importLeads } from '../support/leads.ts';
import { createCampaign, createInbox, createSequence, enroll, outreachEnv, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';
import { useSyncCountingFerretDb } from '../support/sync-counting-ferretdb.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The writes that guard an effect outside the store are journaled (src/db/journaled.ts): the embedded store has
 * synced them to disk before the effect goes out, so a power loss cannot undo them and have it go out again. The
 * service runs here on a FerretDB of its own whose fsync calls are counted (and which never checkpoints, so every
 * sync is a journaled write's); no worker runs, so nothing else writes meanwhile.
 */
const ferretDb = useSyncCountingFerretDb();
const server = useApiServer(outreachEnv, { databaseUri: () => `${ferretDb.server}/journaled_writes` });
const smtp = useSmtpServer();
const receiver = useWebhookReceiver();
const clock = useTestClock();

beforeEach(() => {
  smtp.reset();
  receiver.reset();
});
afterAll(closeTransports);

/** The syncs counted at each RCPT the SMTP server answers from now on. */
function syncsAtEachRecipient(): number[] {
  const seen: number[] = [];
  smtp.onRecipient = () => seen.push(ferretDb.syncs());
  return seen;
}

async function sender() {
  const { apiKey: key } = await createTestWorkspace('starter');
  return { key, inbox: await createInbox(server, key, smtp) };
}

async function activeCampaign(emails: string[]) {
  const { key, inbox } = await sender();
  const sequence = await createSequence(server, key, [{ subject: 'Hi', body_html: '<p>Hello</p>' }]);
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
  await updateCampaign(server, key, { id: campaign.id, status: 'active' });
}

describe('journaled writes', () => {
  it("the sending engine's claim of each message is on disk before its SMTP call", async () => {
    await activeCampaign(['a@x.test', 'b@x.test', 'c@x.test']);
    const before = ferretDb.syncs();
    const seen = syncsAtEachRecipient();
    expect(await runOutreachPass()).toMatchObject({ sent: 3 });
    expect(seen).toHaveLength(3);
    for (const syncs of seen) expect(syncs).toBeGreaterThan(before);
  });

  it("a deferred message's retry is claimed on disk before its SMTP call", async () => {
    smtp.script('later@x.test', 'tempfail');
    await activeCampaign(['later@x.test']);
    expect(await runOutreachPass()).toMatchObject({ deferred: 1 });
    smtp.script('later@x.test', 'accept');
    clock.advance(5 * 60_000 + 1_000);
    const before = ferretDb.syncs();
    const seen = syncsAtEachRecipient();
    expect(await runOutreachPass()).toMatchObject({ sent: 1 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThan(before);
  });

  it('a direct send is claimed on disk before its SMTP call', async () => {
    const { key, inbox } = await sender();
    const before = ferretDb.syncs();
    const seen = syncsAtEachRecipient();
    const sent = await server.request('POST', '/api/outreach/send', {
      key,
      body: { inbox_id: inbox.id, to: 'direct@x.test', subject: 'Hello', body_html: '<p>Hi</p>' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThan(before);
  });

  it('each credit debit is on disk when it is answered', async () => {
    const { workspaceId } = await createTestWorkspace('starter');
    await setBalances(workspaceId, { crawl: 10 });
    const before = ferretDb.syncs();
    for (let n = 0; n < 3; n++) await debitCredits(workspaceId, 'crawl', 1);
    expect(ferretDb.syncs() - before).toBeGreaterThanOrEqual(3);
  });

  it("a webhook attempt's record is on disk once the delivery is made", async () => {
    const { apiKey: key } = await createTestWorkspace();
    const created = await server.request('POST', '/api/webhooks', { key, body: { url: receiver.url, events: ['*'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const test = await server.request('POST', `/api/webhooks/${created.body.webhook.id}/test`, { key });
    expect(test.status, JSON.stringify(test.body)).toBe(202);
    const event = (await getEvent(test.body.delivery.event_id))!;
    const before = ferretDb.syncs();
    await fanOut([event]);
    expect(receiver.received).toHaveLength(1);
    expect(ferretDb.syncs()).toBeGreaterThan(before);
  });

  it("an Idempotency-Key's answer is on disk when it is given; a call without a key waits for no sync", async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const create = (headers: Record<string, string>) =>
      server.request('POST', '/api/outreach/sequences', {
        key,
        headers,
        body: { name: 'Intro', steps: [{ subject: 'Hi', body_html: '<p>Hi</p>' }] },
      });
    let before = ferretDb.syncs();
    expect((await create({})).status).toBe(200);
    expect(ferretDb.syncs()).toBe(before);
    before = ferretDb.syncs();
    expect((await create({ 'Idempotency-Key': 'journaled-1' })).status).toBe(200);
    expect(ferretDb.syncs()).toBeGreaterThan(before);
  });
});
