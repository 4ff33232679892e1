import mongoose from 'mongoose';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runOutreachPass, type TickReport } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
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
import { smtpErrors, startWorker as startWorkerOn, waitFor } from './engine-workers.ts';

/**
 * The sending engine's guarantees across processes, on the embedded store (FerretDB: between processes only
 * unique inserts are atomic there). Worker processes (engine-process.ts) share the test server's database and
 * send through a real SMTP server; everything listens on and connects to 127.0.0.1.
 */

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret', second: 'secret' });
const minute = 60_000;

const steps = [
  { subject: 'Step one', body_html: '<p>Hello</p>' },
  // Due as soon as step one went out: a worker's next pass may send it while the other still sends step one.
  { wait_days: 0, subject: 'Step two', body_html: '<p>Still there?</p>' },
];
const stepOf = (subject: string | undefined) => steps.findIndex((step) => step.subject === subject);

beforeEach(() => smtp.reset());
afterEach(async () => {
  // A pass goes over every active campaign in the database: the next test's passes see only its own.
  await mongoose.connection.db!.collection('outreach_campaigns').updateMany({ status: 'active' }, { $set: { status: 'paused' } });
});
afterAll(closeTransports);

/** Starts a worker process; resolves once it is connected, waiting for `go()` to start its passes. */
const startWorker = () => startWorkerOn(server);

/** A workspace with one inbox per SMTP login (`cap` its dailyLimit) and an active campaign of `steps` for `emails`. */
async function startCampaign(inboxes: Record<string, number>, emails: string[], campaign: Record<string, unknown> = {}) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const inboxIds = [];
  for (const [user, cap] of Object.entries(inboxes)) {
    const smtpLogin = { host: smtp.host, port: smtp.port, secure: false, user, password: 'secret' };
    inboxIds.push((await createInbox(server, key, smtp, { dailyLimit: cap, from: `${user}@acme.test`, smtp: smtpLogin })).id);
  }
  const sequence = await createSequence(server, key, steps);
  const created = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: inboxIds, ...campaign });
  const leads = await importLeads(
    server,
    key,
    emails.map((email) => ({ email })),
  );
  await enroll(
    server,
    key,
    created.id,
    leads.map((lead) => lead.id),
  );
  await updateCampaign(server, key, { id: created.id, status: 'active' });
  return { key, campaign: created };
}

const messages = () => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>('outreach_messages');

describe('two worker processes sending at once', () => {
  it("send each lead each step once, and together keep to each inbox's cap and the campaign's daily limit", async () => {
    // 16 leads and two steps: 32 sends wanted, more than the 24 the campaign allows a day, and the inboxes
    // allow 15 + 10. Fewer leads than the limit, so step two comes due (and is raced for) within the day.
    // Half the recipients answer RCPT slowly, so each process has sends in flight while the other works
    // through the same due steps.
    const caps = { sender: 15, second: 10 };
    const dailyLimit = 24;
    const emails = Array.from({ length: 16 }, (_, i) => `lead${i}@${i % 2 ? 'slow' : 'fast'}.test`);
    smtp.script('@slow.test', { delayMs: 200 });
    const { campaign } = await startCampaign(caps, emails, { daily_limit: dailyLimit });

    const workers = [await startWorker(), await startWorker()];
    for (const worker of workers) worker.go();
    expect(await Promise.all(workers.map((worker) => worker.exited)), workers.map((worker) => worker.stderr()).join('\n')).toEqual([0, 0]);

    const received = smtp.received.map((mail) => ({
      user: mail.user,
      to: mail.to.join(),
      step: stepOf(mail.parsed.subject),
      messageId: mail.parsed.messageId!,
    }));
    // Both processes sent (the guarantees below held between two senders), and each message came from one of them.
    const [first, second] = workers.map((worker) => worker.accepted());
    expect(first!.length).toBeGreaterThan(0);
    expect(second!.length).toBeGreaterThan(0);
    expect([...first!, ...second!].sort()).toEqual(received.map((mail) => mail.messageId).sort());

    const pairs = received.map(({ to, step }) => `${to} step ${step}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(received.filter(({ step }) => step === 1).length).toBeGreaterThan(0);
    expect(received.length).toBeLessThanOrEqual(dailyLimit);
    for (const [user, cap] of Object.entries(caps)) expect(received.filter((mail) => mail.user === user).length).toBeLessThanOrEqual(cap);

    // One record per (enrollment, step), every claim settled as sent, and the sent ones are exactly what was received.
    const records = await messages().find({ campaignId: campaign.id }).toArray();
    expect(new Set(records.map((record) => record._id)).size).toBe(records.length);
    expect(records.filter((record) => record.status !== 'sent')).toEqual([]);
    const recorded = records.map((record) => `${record.to} step ${record.step} ${record.messageId}`);
    expect(recorded.sort()).toEqual(received.map(({ to, step, messageId }) => `${to} step ${step} ${messageId}`).sort());
  }, 90_000);
});

describe('a worker process killed mid-send', () => {
  it('leaves the steps it claimed unsent: skipped while fresh, then reported as interrupted and never sent again', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `lead${i}@slow.test`);
    // RCPT is answered after 3 s: the worker's first sends are on the wire when it dies.
    smtp.script('@slow.test', { delayMs: 3_000 });
    const { key, campaign } = await startCampaign({ sender: 500 }, emails);

    const worker = await startWorker();
    worker.go();
    await waitFor('RCPT commands from the worker', () => emails.some((email) => smtp.attempts(email) > 0), worker);
    worker.child.kill('SIGKILL');
    expect(await worker.exited).toBe('SIGKILL');
    smtp.script('@slow.test', 'accept');

    const claimed = await messages().find({ campaignId: campaign.id }).toArray();
    expect(claimed.length).toBeGreaterThan(0);
    expect(claimed.every((record) => record.status === 'claimed' && record.step === 0)).toBe(true);
    const ids = claimed.map((record) => record._id);
    const cut = new Set(claimed.map((record) => record.to as string));

    // While fresh, a claim may be another worker's send under way: skipped; every other lead gets both steps
    // (step two is due as soon as step one went out, within the same pass).
    expect(await runOutreachPass()).toEqual({ claimed_elsewhere: cut.size, sent: 2 * (emails.length - cut.size) });
    expect(
      (
        await messages()
          .find({ _id: { $in: ids } })
          .toArray()
      ).map((record) => record.status),
    ).toEqual(ids.map(() => 'claimed'));

    // The engine takes a claim older than 10 minutes for a dead worker's. Rather than wait, the claims are made
    // 11 minutes old, in the database directly.
    await messages().updateMany({ _id: { $in: ids } }, { $set: { updatedAt: new Date(Date.now() - 11 * minute) } });
    const reports: TickReport[] = [];
    do reports.push(await runOutreachPass());
    while (reports.at(-1)!.sent && reports.length < 10);
    expect(reports.reduce((sum, report) => sum + (report.interrupted ?? 0), 0)).toBe(cut.size);

    expect(
      (
        await messages()
          .find({ _id: { $in: ids } })
          .toArray()
      ).map((record) => record.status),
    ).toEqual(ids.map(() => 'interrupted'));
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({
      interrupted: cut.size,
      finished: emails.length,
      active: 0,
    });
    // A cut lead never gets the step it was cut on (it may have gone out) and moves on; every other lead gets each step once.
    for (const email of emails) {
      expect(
        mailTo(smtp, email).map((mail) => mail.parsed.subject),
        email,
      ).toEqual(cut.has(email) ? ['Step two'] : ['Step one', 'Step two']);
    }
    // All the SMTP server had to say: the dead worker's connections were reset.
    expect(smtpErrors.filter((code) => code !== 'ECONNRESET' && code !== 'EPIPE')).toEqual([]);
  }, 90_000);
});
