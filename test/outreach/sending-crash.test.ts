import mongoose from 'mongoose';
import { afterAll, describe, expect, it } from 'vitest';
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
import { smtpErrors, startWorker, waitFor } from './engine-workers.ts';

/**
 * A sending worker killed (SIGKILL) mid-campaign, then the service started again: a worker process
 * (engine-process.ts) sends through a real SMTP server that holds some recipients' RCPT unanswered, so they are in
 * flight when it dies while the others of their chunk were accepted.
 */

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
afterAll(closeTransports);

const minute = 60_000;
const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);

const steps = [
  { subject: 'Step one', body_html: '<p>Hello</p>' },
  // Due as soon as step one went out, in its thread.
  { wait_days: 0, thread_mode: 'reply', subject: '', body_html: '<p>Still there?</p>' },
];
const stepOf = (text: string | undefined) => (text?.includes('Still there?') ? 1 : 0);

describe('a worker killed mid-send, and the service started again', () => {
  it('has recorded every message the server accepted, counts the ones in flight as unknown (not failed), and replies to none of them', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, steps);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const emails = Array.from({ length: 20 }, (_, i) => `lead${i}@x.test`);
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
    // Due steps go in the order of their enrollments' ids (the campaign's id, then the lead's): the first eight
    // leads are the first sends claimed together. Two of them are never answered; the other six are accepted.
    const inOrder = [...leads].sort((a, b) => (a.id < b.id ? -1 : 1));
    const inFlight = inOrder.slice(0, 2).map((lead) => lead.email as string);
    for (const email of inFlight) smtp.script(email, 'hold');
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });

    const records = () => collection('outreach_messages').find({ campaignId: campaign.id }).toArray();
    const worker = await startWorker(server);
    worker.go();
    await waitFor(
      'the messages the server accepted to be recorded sent, with the two held ones in flight',
      async () => {
        if (smtp.received.length < 6 || inFlight.some((email) => smtp.attempts(email) === 0)) return false;
        const sent = new Set((await records()).filter((record) => record.status === 'sent').map((record) => record.messageId));
        return smtp.received.every((mail) => sent.has(mail.parsed.messageId));
      },
      worker,
    );
    worker.child.kill('SIGKILL');
    expect(await worker.exited).toBe('SIGKILL');
    for (const email of inFlight) smtp.script(email, 'accept');
    const acceptedBeforeKill = smtp.received.map((mail) => mail.parsed.messageId);
    expect(acceptedBeforeKill).toHaveLength(6);
    // Only the messages in flight are left without an outcome.
    const atKill = await records();
    expect(atKill.filter((record) => record.status !== 'sent').map((record) => record.to)).toEqual(expect.arrayContaining(inFlight));
    expect(atKill.filter((record) => record.status !== 'sent')).toHaveLength(inFlight.length);
    expect(atKill.filter((record) => record.status !== 'sent').every((record) => record.status === 'claimed')).toBe(true);

    // Ten minutes on, as the service sees it (claims and holds made older in the database instead of waiting),
    // the service starts again: a new worker process sends the rest.
    const tenMinutesAgo = new Date(Date.now() - 11 * minute);
    await collection('outreach_messages').updateMany({ campaignId: campaign.id }, { $set: { updatedAt: tenMinutesAgo } });
    await collection('outreach_send_holds').updateMany({}, { $set: { at: tenMinutesAgo } });
    const restarted = await startWorker(server);
    restarted.go();
    expect(await restarted.exited, restarted.stderr()).toBe(0);

    // Nothing went out twice, and each message the server accepted is recorded sent, under its Message-ID.
    const received = smtp.received.map((mail) => ({
      to: mail.to.join(),
      step: stepOf(mail.parsed.text),
      messageId: mail.parsed.messageId,
    }));
    const pairs = received.map(({ to, step }) => `${to} step ${step}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    const stored = await records();
    const sent = stored.filter((record) => record.status === 'sent');
    expect(sent.map((record) => `${record.to} step ${record.step} ${record.messageId}`).sort()).toEqual(
      received.map(({ to, step, messageId }) => `${to} step ${step} ${messageId}`).sort(),
    );
    expect(acceptedBeforeKill.every((messageId) => sent.some((record) => record.messageId === messageId))).toBe(true);
    // The two in flight are unknown: never sent again.
    const unknown = stored.filter((record) => record.status !== 'sent');
    expect(unknown.map((record) => [record.to, record.step, record.status]).sort()).toEqual(
      inFlight.map((email) => [email, 0, 'interrupted']).sort(),
    );

    // A lead whose first message is unknown gets the reply step as a new thread: its own subject, no Re:, no
    // In-Reply-To or References. Every other lead gets it in the thread of the first message it received.
    for (const email of emails) {
      const mails = mailTo(smtp, email);
      if (inFlight.includes(email)) {
        expect(mails.map((mail) => [stepOf(mail.parsed.text), mail.parsed.subject])).toEqual([[1, 'Step one']]);
        expect(mails[0]!.header('In-Reply-To')).toBeUndefined();
        expect(mails[0]!.header('References')).toBeUndefined();
      } else {
        expect(mails.map((mail) => [stepOf(mail.parsed.text), mail.parsed.subject])).toEqual([
          [0, 'Step one'],
          [1, 'Re: Step one'],
        ]);
        expect(mails[1]!.header('In-Reply-To')).toBe(mails[0]!.parsed.messageId);
      }
    }

    // Progress, statistics and the inbox's figures agree with the records: the unknown are neither sent nor failed,
    // and hold their slots of the cap (they may have gone out).
    const sentByStep = [0, 1].map((step) => sent.filter((record) => record.step === step).length);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({
      finished: emails.length,
      active: 0,
      failed: 0,
      interrupted: inFlight.length,
      steps: [
        { step: 0, sent: sentByStep[0] },
        { step: 1, sent: sentByStep[1] },
      ],
    });
    const stats = await server.request('GET', '/api/outreach/stats?brand=all', { key });
    expect(stats.body.totals).toMatchObject({ sent14d: sent.length, failed14d: 0, sent24h: sent.length + unknown.length });
    const listed = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes[0];
    expect(listed).toMatchObject({ sent24h: sent.length + unknown.length, sent14d: sent.length, failed14d: 0, health: 100 });
    // All the SMTP server had to say: the dead worker's connections were reset.
    expect(smtpErrors.filter((code) => code !== 'ECONNRESET' && code !== 'EPIPE')).toEqual([]);
  }, 120_000);
});
