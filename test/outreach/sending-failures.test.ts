import mongoose from 'mongoose';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
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
  updateCampaign,
} from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

// A small sample for the bounce guard, so a few sends show it working.
const server = useApiServer({ ...outreachEnv, BOUNCE_GUARD_MIN_SENDS: '4' });
const smtp = useSmtpServer();
const clock = useTestClock();
const minute = 60_000;

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);
const oneStep = [{ subject: 'Hi', body_html: '<p>Hello</p>' }];

async function campaignFor(emails: string[], steps: Array<Record<string, unknown>> = oneStep) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp);
  const sequence = await createSequence(server, key, steps);
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
  const inboxFigures = async () =>
    (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes.find((i: { id: string }) => i.id === inbox.id);
  return { key, inbox, campaign, leads, inboxFigures };
}

describe('temporary failures', () => {
  it('tries again later with backoff, giving the cap slot back meanwhile', async () => {
    smtp.script('later@x.test', 'tempfail');
    const { inboxFigures } = await campaignFor(['later@x.test']);

    expect(await runOutreachPass()).toMatchObject({ deferred: 1 });
    expect(smtp.attempts('later@x.test')).toBe(1);
    const record = await collection('outreach_messages').findOne({ to: 'later@x.test' });
    expect(record).toMatchObject({ status: 'deferred', attempts: 1, error: expect.stringContaining('451') });
    expect((record!.retryAt as Date).getTime() - Date.now()).toBeGreaterThan(4 * minute);
    expect((await inboxFigures()).sent24h).toBe(0);

    expect((await runOutreachPass()).deferred ?? 0).toBe(0); // not due yet
    expect(smtp.attempts('later@x.test')).toBe(1);

    smtp.script('later@x.test', 'accept');
    clock.advance(5 * minute + 1000);
    expect(await runOutreachPass()).toMatchObject({ sent: 1 });
    expect(mailTo(smtp, 'later@x.test')).toHaveLength(1);
    expect(await collection('outreach_messages').findOne({ to: 'later@x.test' })).toMatchObject({
      status: 'sent',
      attempts: 2,
      messageId: mailTo(smtp, 'later@x.test')[0]!.parsed.messageId,
    });
    expect((await inboxFigures()).sent24h).toBe(1);
  });

  it('fails the message after its last attempt, and the lead gets nothing more', async () => {
    smtp.script('never@x.test', 'tempfail');
    const { key, campaign } = await campaignFor(
      ['never@x.test'],
      [...oneStep, { wait_days: 1, subject: 'Again', body_html: '<p>Again</p>' }],
    );
    for (const waitMs of [0, 5 * minute, 30 * minute, 2 * 3_600_000, 6 * 3_600_000]) {
      clock.advance(waitMs + 1000);
      await runOutreachPass();
    }
    expect(smtp.attempts('never@x.test')).toBe(5);
    expect(await collection('outreach_messages').findOne({ to: 'never@x.test' })).toMatchObject({ status: 'failed', attempts: 5 });
    clock.advance(3 * 24 * 3_600_000);
    await runOutreachPass();
    expect(smtp.attempts('never@x.test')).toBe(5);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ enrolled: 1, active: 0, failed: 1 });
  });
});

describe('permanent refusals', () => {
  it('counts a 5.x.x RCPT refusal as a hard bounce and suppresses the address, so no campaign writes to it again', async () => {
    smtp.script('gone@x.test', 'reject');
    const { key, campaign } = await campaignFor(['gone@x.test', 'here@x.test']);
    expect(await runOutreachPass()).toMatchObject({ sent: 1, stopped: 1 });
    const record = await collection('outreach_messages').findOne({ to: 'gone@x.test' });
    expect(record).toMatchObject({ status: 'failed', error: expect.stringContaining('5.1.1') });
    const list = await server.request('GET', '/api/outreach/suppressions?q=gone', { key });
    expect(list.body.suppressions).toEqual([expect.objectContaining({ email: 'gone@x.test', reason: 'hard_bounce' })]);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ bounced: 1, finished: 1, active: 0 });
  });

  it("pauses an inbox whose bounces pass the guard's rate, sends nothing more from it, and resumes on request", async () => {
    const emails = ['b1@x.test', 'a1@x.test', 'a2@x.test', 'a3@x.test', 'a4@x.test', 'a5@x.test'];
    smtp.script('b1@x.test', 'reject');
    const { key, inbox, inboxFigures } = await campaignFor(emails.slice(0, 4));
    await runOutreachPass();
    const paused = await inboxFigures();
    expect(paused).toMatchObject({
      sent24h: 4,
      bounceRate24h: 0.25,
      sendingPausedAt: expect.any(String),
      sendingPausedReason: expect.stringContaining('1 bounces in 4 sends'),
    });
    expect(paused.health).toBe(0);
    const pausedEvents = await mongoose.connection
      .db!.collection('events')
      .find({ type: 'outreach.inbox.paused', 'data.id': inbox.id })
      .toArray();
    expect(pausedEvents).toHaveLength(1);
    expect(pausedEvents[0]!.data).toMatchObject({ id: inbox.id, sendingPausedAt: expect.any(String) });

    // Another campaign on the same inbox sends nothing while it is paused.
    const sequence = await createSequence(server, key, oneStep);
    const second = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const more = await importLeads(
      server,
      key,
      emails.slice(4).map((email) => ({ email })),
    );
    await enroll(
      server,
      key,
      second.id,
      more.map((lead) => lead.id),
    );
    await updateCampaign(server, key, { id: second.id, status: 'active' });
    await runOutreachPass();
    expect(smtp.received).toHaveLength(3);
    const direct = await server.request('POST', '/api/outreach/send', {
      key,
      body: { inbox_id: inbox.id, to: 'direct@x.test', subject: 'Hi', body_html: '<p>Hi</p>' },
    });
    expect(direct.status).toBe(409);
    expect(direct.body.code).toBe('inbox_paused');

    const resumed = await server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key, body: { paused: false } });
    expect(resumed.body.inbox.sendingPausedAt).toBeNull();
    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to[0]).sort()).toEqual(['a1@x.test', 'a2@x.test', 'a3@x.test', 'a4@x.test', 'a5@x.test']);
  });
});

describe('what stops a lead before its next step', () => {
  it('checks the do-not-contact list again at send time, addresses and whole domains', async () => {
    const { key, campaign } = await campaignFor(['late@listed.test', 'Whole@Domain.test', 'fine@x.test']);
    const added = await server.request('POST', '/api/outreach/suppressions', {
      key,
      body: { entries: ['LATE@listed.test', '@domain.test'], reason: 'manual' },
    });
    expect(added.status).toBe(201);
    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to[0])).toEqual(['fine@x.test']);
    expect(smtp.attempts('late@listed.test') + smtp.attempts('whole@domain.test')).toBe(0);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ failed: 2, finished: 1 });
  });

  it('reads the list again for sends that go more than a second after the pass read it', async () => {
    // Nine leads: the inbox's first eight sends go together and take more than a second (each RCPT 1.1 s).
    const emails = Array.from({ length: 9 }, (_, n) => `slow${n}@x.test`);
    smtp.script('@x.test', { delayMs: 1_100 });
    const { key, campaign } = await campaignFor(emails);
    const pass = runOutreachPass();
    await vi.waitFor(() => expect(emails.some((email) => smtp.attempts(email) > 0)).toBe(true), { timeout: 10_000, interval: 20 });
    // Listed while the first eight are at the SMTP server: only the ninth is still to go.
    expect((await server.request('POST', '/api/outreach/suppressions', { key, body: { entries: ['@x.test'] } })).status).toBe(201);
    await pass;
    expect(smtp.received).toHaveLength(8);
    expect(emails.filter((email) => smtp.attempts(email) === 0)).toHaveLength(1);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ finished: 8, failed: 1 });
  });

  it('checks a retry against the list at the address its first attempt went to', async () => {
    smtp.script('first@x.test', 'tempfail');
    const { key, leads } = await campaignFor(['first@x.test']);
    expect(await runOutreachPass()).toMatchObject({ deferred: 1 });
    // The lead's address changes after the first attempt; its retry still goes to the first one, listed since.
    const changed = await server.request('PATCH', `/api/leads/${leads[0]!.id}`, { key, body: { field: 'email', value: 'second@y.test' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await server.request('POST', '/api/outreach/suppressions', { key, body: { entries: ['first@x.test'] } })).status).toBe(201);
    smtp.script('first@x.test', 'accept');
    clock.advance(5 * minute + 1000);
    await runOutreachPass();
    expect(smtp.attempts('first@x.test')).toBe(1);
    expect(smtp.received).toHaveLength(0);
    expect(await collection('outreach_messages').findOne({ to: 'first@x.test' })).toMatchObject({ status: 'failed' });
  });

  it('sends nothing more to a lead archived, disqualified or unsubscribed since it was enrolled', async () => {
    const { key, leads } = await campaignFor(['arch@x.test', 'disq@x.test', 'unsub@x.test', 'ok@x.test']);
    await server.request('PATCH', `/api/leads/${leads[0]!.id}`, { key, body: { archived: true } });
    await server.request('PATCH', `/api/leads/${leads[1]!.id}`, { key, body: { status: 'disqualified' } });
    await collection('leads').updateOne({ _id: leads[2]!.id }, { $set: { unsubscribedAt: new Date() } });
    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to[0])).toEqual(['ok@x.test']);
  });

  it('reports a step whose send was cut off after its claim, and never sends it again', async () => {
    const { key, campaign, leads } = await campaignFor(
      ['cut@x.test'],
      [...oneStep, { wait_days: 0, subject: 'Second', body_html: '<p>Two</p>' }],
    );
    // What a worker that died between claiming step 0 and the SMTP answer leaves behind.
    const enrollmentId = `${campaign.id}:${leads[0]!.id}`;
    const claimedAt = new Date(Date.now() - 11 * minute);
    await collection('outreach_messages').insertOne({
      _id: `${enrollmentId}:0`,
      workspaceId: (await collection('outreach_campaigns').findOne({ _id: campaign.id }))!.workspaceId,
      brandId: campaign.brand_id,
      campaignId: campaign.id,
      enrollmentId,
      leadId: leads[0]!.id,
      inboxId: campaign.inbox_ids[0],
      step: 0,
      variant: 0,
      to: 'cut@x.test',
      subject: 'Hi',
      messageId: '<cut@acme.test>',
      status: 'claimed',
      attempts: 1,
      createdAt: claimedAt,
      updatedAt: claimedAt,
    });
    expect(await runOutreachPass()).toMatchObject({ interrupted: 1 });
    await runOutreachPass();
    expect(mailTo(smtp, 'cut@x.test').map((mail) => mail.parsed.subject)).toEqual(['Second']);
    expect(await collection('outreach_messages').findOne({ _id: `${enrollmentId}:0` })).toMatchObject({ status: 'interrupted' });
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ interrupted: 1, finished: 1 });
  });
});
