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
  updateCampaign,
} from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret', second: 'secret' });
const clock = useTestClock();
const dayMs = 24 * 3_600_000;

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const twoSteps = [
  { subject: 'Hello {{first_name|there}}', body_html: '<p>Hi {{first_name|there}}, how is {{company}}?</p>' },
  { wait_days: 2, thread_mode: 'reply', subject: '', body_html: '<p>Following up, {{first_name|there}}.</p>' },
];

async function startCampaign(options: {
  plan?: 'starter' | 'pro';
  steps?: Array<Record<string, unknown>>;
  inbox?: Record<string, unknown>;
  campaign?: Record<string, unknown>;
  leads: Array<Record<string, unknown>>;
}) {
  const workspace = await createTestWorkspace(options.plan ?? 'starter');
  const key = workspace.apiKey;
  const inbox = await createInbox(server, key, smtp, options.inbox);
  const sequence = await createSequence(server, key, options.steps ?? twoSteps);
  const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id], ...options.campaign });
  const leads = await importLeads(server, key, options.leads);
  await enroll(
    server,
    key,
    campaign.id,
    leads.map((lead) => lead.id),
  );
  await updateCampaign(server, key, { id: campaign.id, status: 'active' });
  return { key, inbox, sequence, campaign, leads };
}

const messages = () => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>('outreach_messages');

describe('the sending engine', () => {
  it('sends each due step once, rendered, with one-click unsubscribe, and threads the reply step under the first message', async () => {
    const leads = [
      { email: 'grace@navy.test', full_name: 'Grace Hopper', company: 'Navy' },
      { email: 'alan@bletchley.test', full_name: 'Alan Turing', company: 'Bletchley' },
    ];
    const { key, campaign, leads: stored } = await startCampaign({ leads });

    const first = await runOutreachPass();
    expect(first.sent).toBe(2);
    expect(smtp.received).toHaveLength(2);
    const [grace] = mailTo(smtp, 'grace@navy.test');
    expect(grace!.parsed.subject).toBe('Hello Grace');
    expect(grace!.parsed.from?.text).toBe('"Ada Byron" <ada@acme.test>');
    expect(grace!.user).toBe('sender');
    expect(grace!.parsed.html).toContain('<p>Hi Grace, how is Navy?</p>');
    expect(grace!.parsed.text).toContain('Hi Grace, how is Navy?');
    expect(grace!.header('List-Unsubscribe')).toMatch(/^<http:\/\/[^>]+\/u\/[\w-]+\.[\w-]+>$/);
    expect(grace!.header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(grace!.parsed.html).toContain('/u/');
    expect(grace!.header('In-Reply-To')).toBeUndefined();
    // The link carries no readable address.
    expect(Buffer.from(grace!.header('List-Unsubscribe')!.split('/u/')[1]!.split('.')[0]!, 'base64url').toString()).not.toContain('grace');

    const record = await messages().findOne({ to: 'grace@navy.test', step: 0 });
    expect(record).toMatchObject({
      status: 'sent',
      messageId: grace!.parsed.messageId,
      campaignId: campaign.id,
      leadId: stored[0]!.id,
      variant: 0,
      attempts: 1,
    });
    const lead = await server.request('GET', `/api/leads/${stored[0]!.id}`, { key });
    expect(lead.body.lead.status).toBe('contacted');

    // Nothing more until the follow-up's two days have passed.
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    expect(smtp.received).toHaveLength(2);
    const progress = (await getCampaign(server, key, campaign.id)).progress;
    expect(progress).toMatchObject({
      enrolled: 2,
      active: 2,
      finished: 0,
      steps: [{ step: 0, sent: 2, variants: [{ variant: 0, sent: 2 }] }],
    });
    expect(Date.parse(progress.next_send_at) - Date.parse(record!.sentAt as string)).toBeGreaterThanOrEqual(2 * dayMs - 1000);

    clock.advance(2 * dayMs + 60_000);
    expect((await runOutreachPass()).sent).toBe(2);
    const [followUp] = mailTo(smtp, 'grace@navy.test').slice(1);
    expect(followUp!.parsed.subject).toBe('Re: Hello Grace');
    expect(followUp!.header('In-Reply-To')).toBe(grace!.parsed.messageId);
    expect(followUp!.header('References')).toBe(grace!.parsed.messageId);
    expect(followUp!.parsed.html).toContain('Following up, Grace.');

    await runOutreachPass();
    const done = await getCampaign(server, key, campaign.id);
    expect(done.status).toBe('completed');
    expect(done.progress).toMatchObject({ enrolled: 2, active: 0, finished: 2, next_send_at: null });
    expect(done.progress.steps.map((s: { sent: number }) => s.sent)).toEqual([2, 2]);
    expect(smtp.received).toHaveLength(4);
    const completed = await mongoose.connection
      .db!.collection('events')
      .find({ type: 'outreach.campaign.completed', 'data.id': campaign.id })
      .toArray();
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({ id: campaign.id, status: 'completed' });
  });

  it("sends only inside the schedule window, in the campaign's time zone, and moves a wait past a closed day to the next window", async () => {
    // Saturday 28 November 2026, 10:00 in Berlin (09:00 UTC): the campaign sends Monday to Friday, 9 to 17 Berlin time.
    clock.set(Date.parse('2026-11-28T09:00:00Z'));
    const schedule = { timezone: 'Europe/Berlin', days: [1, 2, 3, 4, 5], start_hour: 9, end_hour: 17 };
    const steps = [twoSteps[0]!, { wait_days: 4, subject: 'One more thing', body_html: '<p>Still there?</p>' }];
    const { key, campaign } = await startCampaign({
      steps,
      campaign: { schedule },
      leads: [{ email: 'kay@lab.test', full_name: 'Kay', company: 'Lab' }],
    });

    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    expect((await getCampaign(server, key, campaign.id)).progress.next_send_at).toBe('2026-11-30T08:00:00.000Z');

    clock.set(Date.parse('2026-11-30T07:59:00Z')); // Monday 08:59 in Berlin
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    clock.set(Date.parse('2026-11-30T08:00:05Z'));
    expect((await runOutreachPass()).sent).toBe(1);

    // Four days after Monday morning is Friday morning, inside the window.
    expect((await getCampaign(server, key, campaign.id)).progress.next_send_at).toMatch(/^2026-12-04T08:00:0/);
    clock.set(Date.parse('2026-12-04T16:30:00Z')); // Friday 17:30 in Berlin: closed until Monday
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    expect((await getCampaign(server, key, campaign.id)).progress.next_send_at).toBe('2026-12-07T08:00:00.000Z');
    clock.set(Date.parse('2026-12-07T08:10:00Z'));
    expect((await runOutreachPass()).sent).toBe(1);
    expect(mailTo(smtp, 'kay@lab.test').map((mail) => mail.parsed.subject)).toEqual(['Hello Kay', 'One more thing']);
  });

  it("keeps each inbox under its cap over a rolling 24 hours, and rotates across the campaign's inboxes", async () => {
    const workspace = await createTestWorkspace('starter');
    const key = workspace.apiKey;
    const first = await createInbox(server, key, smtp, { dailyLimit: 3 });
    const second = await createInbox(server, key, smtp, {
      dailyLimit: 2,
      from: 'bob@acme.test',
      smtp: { host: smtp.host, port: smtp.port, secure: false, user: 'second', password: 'secret' },
    });
    const sequence = await createSequence(server, key, [{ subject: 'Hi', body_html: '<p>Hello</p>' }]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [first.id, second.id] });
    const leads = await importLeads(
      server,
      key,
      Array.from({ length: 8 }, (_, i) => ({ email: `lead${i}@cap.test` })),
    );
    await enroll(
      server,
      key,
      campaign.id,
      leads.map((lead) => lead.id),
    );
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });

    const report = await runOutreachPass();
    expect(report.sent).toBe(5);
    expect(smtp.received.filter((mail) => mail.user === 'sender')).toHaveLength(3);
    expect(smtp.received.filter((mail) => mail.user === 'second')).toHaveLength(2);
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    const inboxes = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes;
    expect(inboxes.map((inbox: { sent24h: number; cap: number }) => [inbox.sent24h, inbox.cap]).sort()).toEqual([
      [2, 2],
      [3, 3],
    ]);

    clock.advance(23 * 3_600_000);
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    // A send leaves the count at the end of the hour after it turns 24 hours old.
    clock.advance(2 * 3_600_000);
    expect((await runOutreachPass()).sent).toBe(3);
    expect(smtp.received).toHaveLength(8);
    expect(new Set(smtp.received.map((mail) => mail.to[0])).size).toBe(8);
  });

  it("sends no more than the campaign's daily limit per day in its time zone", async () => {
    clock.set(Date.parse('2026-11-23T20:00:00Z')); // Monday 21:00 in Berlin
    const { key, campaign } = await startCampaign({
      steps: [{ subject: 'Hi', body_html: '<p>Hello</p>' }],
      campaign: { daily_limit: 2, schedule: { ...alwaysOpenIn('Europe/Berlin') } },
      leads: Array.from({ length: 5 }, (_, i) => ({ email: `day${i}@limit.test` })),
    });
    expect((await runOutreachPass()).sent).toBe(2);
    clock.set(Date.parse('2026-11-23T22:30:00Z')); // Monday 23:30 in Berlin: still the same day there
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    clock.set(Date.parse('2026-11-23T23:05:00Z')); // Tuesday 00:05 in Berlin (still Monday in UTC)
    expect((await runOutreachPass()).sent).toBe(2);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ enrolled: 5, finished: 4, active: 1 });
  });

  it("ramps a warming inbox's cap from 10 by 5 a day", async () => {
    const { key, inbox } = await startCampaign({
      inbox: { warmupEnabled: true, dailyLimit: 100 },
      steps: [{ subject: 'Hi', body_html: '<p>Hello</p>' }],
      leads: Array.from({ length: 30 }, (_, i) => ({ email: `warm${i}@ramp.test` })),
    });
    // Counted at the server: a pass also sends other tests' campaigns whose day has come round.
    const rampSends = () => smtp.received.filter((mail) => mail.to[0]!.endsWith('@ramp.test')).length;
    await runOutreachPass();
    expect(rampSends()).toBe(10);
    clock.advance(dayMs + 3_600_000); // day 1 of warmup, and the first day's sends out of the count
    await runOutreachPass();
    expect(rampSends()).toBe(25);
    const [listed] = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes.filter(
      (i: { id: string }) => i.id === inbox.id,
    );
    expect(listed).toMatchObject({ cap: 15, sent24h: 15, warmingUp: true });
  });

  it('skips a step the lead lacks a merge variable for, records why, and goes on with the next', async () => {
    const { campaign } = await startCampaign({
      steps: [
        { subject: 'About {{company}}', body_html: '<p>Hi</p>' },
        { wait_days: 0, subject: 'Hello {{first_name|there}}', body_html: '<p>Hi again</p>' },
      ],
      leads: [{ email: 'nocompany@x.test', full_name: 'Nia' }],
    });
    await runOutreachPass();
    await runOutreachPass();
    expect(mailTo(smtp, 'nocompany@x.test').map((mail) => mail.parsed.subject)).toEqual(['Hello Nia']);
    const enrollment = await mongoose.connection.db!.collection('outreach_enrollments').findOne({ campaignId: campaign.id });
    expect(enrollment).toMatchObject({ status: 'finished', skipped: [{ step: 0, reason: expect.stringContaining('company') }] });
  });

  it('gives each lead one A/B version, evenly, and counts sends per version', async () => {
    const steps = [{ subject: 'Version A', body_html: '<p>A</p>', variants: [{ subject: 'Version B', body_html: '<p>B</p>' }] }];
    const { key, campaign } = await startCampaign({
      plan: 'pro',
      steps,
      leads: Array.from({ length: 40 }, (_, i) => ({ email: `ab${i}@split.test` })),
    });
    await runOutreachPass();
    const subjects = smtp.received.map((mail) => mail.parsed.subject);
    const a = subjects.filter((s) => s === 'Version A').length;
    expect(a + subjects.filter((s) => s === 'Version B').length).toBe(40);
    expect(a).toBeGreaterThan(8);
    expect(a).toBeLessThan(32);
    const [step] = (await getCampaign(server, key, campaign.id)).progress.steps;
    expect(step).toEqual({
      step: 0,
      sent: 40,
      variants: [
        { variant: 0, sent: a },
        { variant: 1, sent: 40 - a },
      ],
    });
  });

  it('sends nothing from a paused campaign, and picks up where it stopped when resumed', async () => {
    const { key, campaign } = await startCampaign({
      steps: [{ subject: 'Hi', body_html: '<p>Hello</p>' }],
      leads: [{ email: 'pause@x.test' }],
    });
    await updateCampaign(server, key, { id: campaign.id, status: 'paused' });
    expect((await runOutreachPass()).sent ?? 0).toBe(0);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    expect((await runOutreachPass()).sent).toBe(1);
  });
});

function alwaysOpenIn(timezone: string) {
  return { timezone, days: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };
}
