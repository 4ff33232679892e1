import fc from 'fast-check';
import mongoose from 'mongoose';
import { afterAll, expect, it } from 'vitest';
import { nowMs } from '../../src/clock.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { importLeads } from '../support/leads.ts';
import { createCampaign, createInbox, createSequence, enroll, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer, type RecipientBehaviour } from '../support/smtp-server.ts';

const server = useApiServer({ OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' });
const smtp = useSmtpServer({ s0: 'secret', s1: 'secret', s2: 'secret' });
const clock = useTestClock();
afterAll(closeTransports);

const hourMs = 3_600_000;
const addresses = Array.from({ length: 12 }, (_, i) => `p${i}@d${i % 3}.test`);
const domainOf = (address: string) => `@${address.split('@')[1]}`;

/** Inboxes, campaigns over some of the leads, a do-not-contact list growing between passes, recipients that refuse, and time moving on. */
const scenarios = fc.record({
  inboxCaps: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
  campaigns: fc.array(
    fc.record({
      inboxes: fc.array(fc.nat(2), { minLength: 1, maxLength: 3 }),
      dailyLimit: fc.integer({ min: 1, max: 8 }),
      waits: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 2 }),
      leads: fc.subarray(addresses, { minLength: 1 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  behaviours: fc.array(fc.constantFrom<RecipientBehaviour>('accept', 'accept', 'accept', 'reject', 'tempfail'), {
    minLength: addresses.length,
    maxLength: addresses.length,
  }),
  listedFirst: fc.subarray([...addresses, '@d0.test', '@d1.test']),
  listedLater: fc.array(fc.record({ beforePass: fc.nat(4), entry: fc.constantFrom(...addresses, '@d2.test') }), { maxLength: 3 }),
  hoursBetweenPasses: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 2, maxLength: 5 }),
});
type Scenario = typeof scenarios extends fc.Arbitrary<infer T> ? T : never;

interface Sent {
  to: string;
  inbox: number;
  campaignId: string;
  enrollmentId: string;
  step: number;
  at: number;
}

async function play(scenario: Scenario) {
  smtp.reset();
  scenario.behaviours.forEach((behaviour, i) => smtp.script(addresses[i]!, behaviour));
  const { apiKey: key } = await createTestWorkspace('starter');
  const inboxes: Array<{ id: string }> = [];
  for (const [i, cap] of scenario.inboxCaps.entries()) {
    inboxes.push(
      await createInbox(server, key, smtp, {
        dailyLimit: cap,
        from: `s${i}@acme.test`,
        smtp: { host: smtp.host, port: smtp.port, secure: false, user: `s${i}`, password: 'secret' },
      }),
    );
  }
  const leads = await importLeads(
    server,
    key,
    addresses.map((email) => ({ email })),
  );
  const leadOf = new Map(leads.map((lead) => [lead.email as string, lead.id]));
  const suppress = async (entries: string[]) => {
    if (!entries.length) return;
    const res = await server.request('POST', '/api/outreach/suppressions', { key, body: { entries } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await suppress(scenario.listedFirst);
  const campaignLimits = new Map<string, number>();
  for (const spec of scenario.campaigns) {
    const steps = [
      { subject: 'Hi', body_html: '<p>Hi</p>' },
      ...spec.waits.map((wait_days) => ({ wait_days, subject: 'Again', body_html: '<p>Again</p>' })),
    ];
    const sequence = await createSequence(server, key, steps);
    const inboxIds = [...new Set(spec.inboxes.map((i) => inboxes[i % inboxes.length]!.id))];
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: inboxIds, daily_limit: spec.dailyLimit });
    await enroll(
      server,
      key,
      campaign.id,
      spec.leads.map((email) => leadOf.get(email)!),
    );
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    campaignLimits.set(campaign.id, spec.dailyLimit);
  }

  // What was on the list before each pass, and how many RCPTs each address had had by then.
  const listedBefore: Array<Set<string>> = [];
  const listed = new Set(scenario.listedFirst);
  for (const [pass, hours] of scenario.hoursBetweenPasses.entries()) {
    const later = scenario.listedLater.filter((entry) => entry.beforePass === pass).map((entry) => entry.entry);
    await suppress(later);
    later.forEach((entry) => listed.add(entry));
    listedBefore.push(new Set(listed));
    const attemptsBefore = new Map(addresses.map((address) => [address, smtp.attempts(address)]));
    await runOutreachPass();
    // Nothing on the list before this pass was even offered to the SMTP server in it.
    for (const address of addresses) {
      if (listed.has(address) || listed.has(domainOf(address))) expect(smtp.attempts(address), address).toBe(attemptsBefore.get(address));
    }
    // A hard bounce puts the address on the list: it is never tried again.
    scenario.behaviours.forEach((behaviour, i) => behaviour === 'reject' && smtp.attempts(addresses[i]!) > 0 && listed.add(addresses[i]!));
    clock.advance(hours * hourMs + 60_000);
  }
  // This scenario's campaigns end here: the next scenario's passes send only its own.
  for (const campaignId of campaignLimits.keys()) await updateCampaign(server, key, { id: campaignId, status: 'archived' });

  const records = mongoose.connection.db!.collection<{
    _id: string;
    messageId: string;
    campaignId: string;
    enrollmentId: string;
    step: number;
    inboxId: string;
    sentAt: Date;
    status: string;
  }>('outreach_messages');
  const sent: Sent[] = [];
  for (const mail of smtp.received) {
    const record = await records.findOne({ messageId: mail.parsed.messageId });
    expect(record, 'every message received has its record').not.toBeNull();
    expect(record!.status).toBe('sent');
    sent.push({
      to: mail.to[0]!,
      inbox: Number(mail.user.slice(1)),
      campaignId: record!.campaignId,
      enrollmentId: record!.enrollmentId,
      step: record!.step,
      at: record!.sentAt.getTime(),
    });
  }
  return { sent, inboxCaps: scenario.inboxCaps, campaignLimits };
}

it('never sends to a suppressed address, never over a cap, never a step twice', async () => {
  clock.set(Date.parse('2026-12-01T00:30:00Z'));
  await fc.assert(
    fc.asyncProperty(scenarios, async (scenario) => {
      const { sent, inboxCaps, campaignLimits } = await play(scenario);
      // No step twice: one message per (enrollment, step), each received once.
      const steps = sent.map((s) => `${s.enrollmentId}:${s.step}`);
      expect(new Set(steps).size).toBe(steps.length);
      expect(new Set(smtp.received.map((mail) => mail.parsed.messageId)).size).toBe(smtp.received.length);
      // No inbox over its cap in any 24 hours.
      for (const send of sent) {
        const window = sent.filter((other) => other.inbox === send.inbox && other.at > send.at - 24 * hourMs && other.at <= send.at);
        expect(window.length, `inbox ${send.inbox}`).toBeLessThanOrEqual(inboxCaps[send.inbox]!);
      }
      // No campaign over its daily limit on any day (the schedule's time zone is UTC).
      const perDay = new Map<string, number>();
      for (const send of sent) {
        const day = `${send.campaignId}:${new Date(send.at).toISOString().slice(0, 10)}`;
        perDay.set(day, (perDay.get(day) ?? 0) + 1);
        expect(perDay.get(day)).toBeLessThanOrEqual(campaignLimits.get(send.campaignId)!);
      }
      // A refused recipient was tried once at most, whatever the campaigns.
      scenario.behaviours.forEach((behaviour, i) => behaviour === 'reject' && expect(smtp.attempts(addresses[i]!)).toBeLessThanOrEqual(1));
      clock.advance(3 * 24 * hourMs); // the next scenario starts on a fresh day
    }),
    { numRuns: 20, endOnFailure: true },
  );
  expect(nowMs()).toBeGreaterThan(Date.parse('2026-12-01T00:30:00Z'));
}, 300_000);
