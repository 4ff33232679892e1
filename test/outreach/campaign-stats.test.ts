import mongoose from 'mongoose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useImapServer } from '../support/imap-server.ts';
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

/** GET /api/outreach/campaigns/{id}/stats over a real SMTP server (sends) and a real Dovecot (what came back). */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ stats: 'secret' });
const clock = useTestClock();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const from = 'stats@acme.test';
const link = '<a href="https://acme.test/offer">the offer</a>';
const steps = [
  {
    subject: 'Hello A',
    body_html: `<p>Hi, see ${link}.</p>`,
    variants: [{ subject: 'Hello B', body_html: `<p>Hello, look at ${link}.</p>` }],
  },
  { wait_days: 1, subject: 'Again', body_html: `<p>Following up on ${link}.</p>` },
];
const figures = { sent: 0, opened: 0, clicked: 0, replied: 0, bounced: 0, unsubscribed: 0 };
type Figures = typeof figures;

const site = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, { redirect: 'manual', ...init });
const firstHref = (mail: ReceivedMail, pattern: RegExp) =>
  new URL([...String(mail.parsed.html).matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!).find((url) => pattern.test(url))!).pathname;

/** A person's answer to one of our messages, put in the inbox's mailbox. */
const answer = (mail: ReceivedMail, sender: string, text: string) =>
  imap.append(
    'stats',
    [
      `From: ${sender}`,
      `To: ${from}`,
      `Subject: Re: ${mail.parsed.subject}`,
      `In-Reply-To: ${mail.parsed.messageId}`,
      `Message-ID: <${sender.replace('@', '.')}-${Date.now()}@x.test>`,
      'Date: Tue, 16 Jun 2026 23:00:00 -0400',
      '',
      text,
      '',
    ].join('\r\n'),
  );

/** A mail system's report that one of our messages could not be delivered (a hard bounce). */
const bounceOf = (mail: ReceivedMail, address: string) =>
  imap.append(
    'stats',
    [
      'From: Mail Delivery System <MAILER-DAEMON@mx.x.test>',
      `To: ${from}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Date: Tue, 16 Jun 2026 23:00:00 -0400',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '--B',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.x.test',
      '',
      `Final-Recipient: rfc822; ${address}`,
      'Action: failed',
      'Status: 5.1.1',
      '',
      '--B',
      'Content-Type: text/rfc822-headers',
      '',
      `Message-ID: ${mail.parsed.messageId}`,
      `Subject: ${mail.parsed.subject}`,
      '',
      '--B--',
      '',
    ].join('\r\n'),
  );

async function campaignStats(key: string, id: string) {
  const res = await server.request('GET', `/api/outreach/campaigns/${id}/stats`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    totals: Figures & Record<'open_rate' | 'click_rate' | 'reply_rate' | 'bounce_rate', number>;
    steps: Array<{ step: number; variant: number } & Figures>;
    days: Array<{ date: string } & Figures>;
  };
}

describe('GET /api/outreach/campaigns/{id}/stats', () => {
  it("counts each effect for the step and variant whose message it answers, with totals, rates and the campaign's local days", async () => {
    // Tuesday 16 June 2026, 22:00 in New York (02:00 UTC on the 17th).
    clock.set(Date.parse('2026-06-17T02:00:00Z'));
    const { apiKey: key } = await createTestWorkspace('pro');
    const inbox = await createInbox(server, key, smtp, {
      from,
      imap: { host: imap.host, port: imap.port, secure: false, user: 'stats', password: 'secret' },
    });
    const sequence = await createSequence(server, key, steps);
    const campaign = await createCampaign(server, key, {
      sequence_id: sequence.id,
      inbox_ids: [inbox.id],
      track_opens: true,
      track_clicks: true,
      schedule: { timezone: 'America/New_York', days: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 },
    });
    // Before anything is sent: every version of every step, at zero.
    const empty = await campaignStats(key, campaign.id);
    expect(empty.steps).toEqual([
      { step: 0, variant: 0, ...figures },
      { step: 0, variant: 1, ...figures },
      { step: 1, variant: 0, ...figures },
    ]);
    expect(empty.totals).toEqual({ ...figures, open_rate: 0, click_rate: 0, reply_rate: 0, bounce_rate: 0 });

    const people = ['opener', 'clicker', 'refused', 'replier', 'bounced', 'leaver', 'late'].map((name) => `${name}@stats.test`);
    smtp.script('refused@stats.test', 'reject');
    const leads = await importLeads(
      server,
      key,
      people.map((email) => ({ email })),
    );
    await enroll(
      server,
      key,
      campaign.id,
      leads.map((lead) => lead.id),
    );
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    const first = (email: string) => mailTo(smtp, email)[0]!;
    expect(smtp.received).toHaveLength(6);

    // What each person did with the first step's message.
    expect((await site(firstHref(first('opener@stats.test'), /\/o\//))).status).toBe(200);
    const offer = firstHref(first('clicker@stats.test'), /\/c\//);
    for (let n = 0; n < 2; n++) expect((await site(offer)).headers.get('location')).toBe('https://acme.test/offer');
    await answer(first('replier@stats.test'), 'replier@stats.test', 'Sounds good, call me on Thursday.');
    await bounceOf(first('bounced@stats.test'), 'bounced@stats.test');
    const leaving = await site(unsubscribePath(first('leaver@stats.test')), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(leaving.status).toBe(200);
    await readMailboxes();

    // Wednesday 17 June, 23:00 in New York: the second step goes to those still enrolled, and one answers it.
    clock.set(Date.parse('2026-06-18T03:00:00Z'));
    await runOutreachPass();
    const second = ['opener', 'clicker', 'late'].map((name) => mailTo(smtp, `${name}@stats.test`)[1]!);
    expect(second.map((mail) => mail.parsed.subject)).toEqual(['Again', 'Again', 'Again']);
    expect(smtp.received).toHaveLength(9);
    await answer(second[2]!, 'late@stats.test', 'Yes, tell me more.');
    await readMailboxes();
    // The clicks are recorded just after their redirects: wait until both are stored.
    const deadline = Date.now() + 10_000;
    while ((await mongoose.connection.db!.collection('outreach_clicks').countDocuments({ campaignId: campaign.id })) < 2) {
      if (Date.now() > deadline) throw new Error('the clicks were not stored in 10 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    // The version each person got of the first step: its subject, or for the address refused at RCPT, its message record.
    const refused = await mongoose.connection.db!.collection('outreach_messages').findOne({ to: 'refused@stats.test' });
    const variantOf = (email: string) =>
      email === 'refused@stats.test' ? (refused!.variant as number) : first(email).parsed.subject === 'Hello B' ? 1 : 0;
    const expected = new Map<string, { step: number; variant: number } & Figures>([
      ['0:0', { step: 0, variant: 0, ...figures }],
      ['0:1', { step: 0, variant: 1, ...figures }],
      ['1:0', { step: 1, variant: 0, ...figures }],
    ]);
    const count = (email: string, step: number, figure: keyof Figures) =>
      expected.get(`${step}:${step === 0 ? variantOf(email) : 0}`)![figure]++;
    for (const email of people) count(email, 0, 'sent');
    count('opener@stats.test', 0, 'opened');
    count('clicker@stats.test', 0, 'clicked');
    count('replier@stats.test', 0, 'replied');
    count('bounced@stats.test', 0, 'bounced');
    count('refused@stats.test', 0, 'bounced');
    count('leaver@stats.test', 0, 'unsubscribed');
    for (const name of ['opener', 'clicker', 'late']) count(`${name}@stats.test`, 1, 'sent');
    count('late@stats.test', 1, 'replied');

    const stats = await campaignStats(key, campaign.id);
    expect(stats.steps).toEqual([...expected.values()]);
    expect(stats.totals).toEqual({
      sent: 10,
      opened: 1,
      clicked: 1,
      replied: 2,
      bounced: 2,
      unsubscribed: 1,
      open_rate: 0.1,
      click_rate: 0.1,
      reply_rate: 0.2,
      bounce_rate: 0.2,
    });
    // Days in the campaign's time zone: the 16th and the 17th in New York (the 17th and 18th in UTC).
    expect(stats.days).toHaveLength(14);
    expect(stats.days[0]!.date).toBe('2026-06-04');
    expect(stats.days.slice(0, 12).every((day) => Object.values({ ...day, date: 0 }).every((n) => n === 0))).toBe(true);
    expect(stats.days.slice(12)).toEqual([
      { date: '2026-06-16', sent: 7, opened: 1, clicked: 1, replied: 1, bounced: 2, unsubscribed: 1 },
      { date: '2026-06-17', sent: 3, opened: 0, clicked: 0, replied: 1, bounced: 0, unsubscribed: 0 },
    ]);
  });

  it("answers 404 for an unknown campaign and another workspace's", async () => {
    const mine = await createTestWorkspace('starter');
    const theirs = await createTestWorkspace('starter');
    const inbox = await createInbox(server, theirs.apiKey, smtp);
    const sequence = await createSequence(server, theirs.apiKey, [{ subject: 'Hi', body_html: '<p>Hi</p>' }]);
    const campaign = await createCampaign(server, theirs.apiKey, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    for (const id of [campaign.id, '7c9e6679-7425-40de-944b-e07fc1f90ae7']) {
      const res = await server.request('GET', `/api/outreach/campaigns/${id}/stats`, { key: mine.apiKey });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await server.request('GET', `/api/outreach/campaigns/${campaign.id}/stats`, { key: theirs.apiKey })).status).toBe(200);
  });
});
