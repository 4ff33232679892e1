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
  getCampaign,
  mailTo,
  outreachEnv,
  updateCampaign,
} from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/**
 * Returned mail that carries no RFC 3464 report, and complaints, read from a
 * real IMAP server (Dovecot): what each does to the address, the lead's
 * sequence and the statistics. Messages are put in the mailbox with IMAP
 * APPEND, as delivery would.
 */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ kim: 'secret', lou: 'secret', max: 'secret' });
const clock = useTestClock();
const dayMs = 24 * 3_600_000;

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const crlf = (lines: string[]) => lines.join('\r\n');
const replies = (inboxId: string) =>
  mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>('outreach_replies').find({ inboxId }).toArray();

/** A workspace whose inbox reads `imapUser`'s mailbox, and an active two-step campaign that has sent step one to `emails`. */
async function campaignThatSent(imapUser: string, emails: string[]) {
  clock.set(Date.parse('2026-11-24T09:00:00Z'));
  const { apiKey: key } = await createTestWorkspace('starter');
  const from = `${imapUser}@acme.test`;
  const inbox = await createInbox(server, key, smtp, {
    from,
    imap: { host: imap.host, port: imap.port, secure: false, user: imapUser, password: 'secret' },
  });
  const sequence = await createSequence(server, key, [
    { subject: 'Hello', body_html: '<p>Hi there</p>' },
    { wait_days: 3, thread_mode: 'reply', subject: '', body_html: '<p>Any thoughts?</p>' },
  ]);
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
  await runOutreachPass();
  const sentTo = (email: string) => mailTo(smtp, email)[0]!.parsed.messageId!;
  const suppressed = async () =>
    (await server.request('GET', '/api/outreach/suppressions', { key })).body.suppressions
      .map((s: { email: string; reason: string; source: string }) => `${s.email} ${s.reason} ${s.source}`)
      .sort();
  /** Step two three days on: which of this campaign's leads still get it. */
  const followedUp = async () => {
    smtp.reset();
    clock.advance(3 * dayMs + 60_000);
    await runOutreachPass();
    return smtp.received
      .map((mail) => mail.to.join())
      .filter((to) => emails.includes(to))
      .sort();
  };
  return { key, inbox, campaign, from, sentTo, suppressed, followedUp };
}

/** The message of ours a report returns: its header section. */
const ours = (from: string, to: string, messageId: string) => [
  `From: Ada <${from}>`,
  `To: ${to}`,
  'Subject: Hello',
  'Date: Tue, 24 Nov 2026 09:00:00 +0000',
  `Message-ID: ${messageId}`,
];

describe('complaints', () => {
  it('suppress the address as a complaint, stop the lead and count in the statistics: ARF, an SES notice, a plain notice', async () => {
    const leads = ['arf@fbl.test', 'ses@fbl.test', 'plain@fbl.test', 'calm@fbl.test'];
    const { key, inbox, campaign, from, sentTo, suppressed, followedUp } = await campaignThatSent('kim', leads);
    // An RFC 5965 abuse report returning our message.
    await imap.append(
      'kim',
      crlf([
        'From: Feedback Loop <fbl@isp.test>',
        `To: ${from}`,
        'Subject: FW: Hello',
        'Message-ID: <fbl-1@isp.test>',
        'Date: Tue, 24 Nov 2026 12:00:00 +0000',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
        '',
        '--F',
        'Content-Type: text/plain',
        '',
        'An abuse report.',
        '--F',
        'Content-Type: message/feedback-report',
        '',
        'Feedback-Type: abuse',
        'Version: 1',
        'Original-Rcpt-To: <arf@fbl.test>',
        '',
        '--F',
        'Content-Type: message/rfc822',
        '',
        ...ours(from, 'arf@fbl.test', sentTo('arf@fbl.test')),
        '',
        'Hi there',
        '--F--',
        '',
      ]),
    );
    // Amazon SES's complaint notice by email: JSON naming our Message-ID among the sent message's headers.
    const notice = {
      notificationType: 'Complaint',
      complaint: { complainedRecipients: [{ emailAddress: 'ses@fbl.test' }], complaintFeedbackType: 'abuse' },
      mail: { headers: [{ name: 'Message-ID', value: sentTo('ses@fbl.test') }] },
    };
    await imap.append(
      'kim',
      crlf([
        'From: AWS Notifications <no-reply@sns.test>',
        `To: ${from}`,
        'Subject: AWS Notification Message',
        'Message-ID: <ses-1@sns.test>',
        'Date: Tue, 24 Nov 2026 12:05:00 +0000',
        '',
        JSON.stringify(notice),
        '',
      ]),
    );
    // An older feedback loop: a plain message with ours inline, whose Message-ID the parser does not show: matched by the address.
    await imap.append(
      'kim',
      crlf([
        'From: staff@webmail.test',
        `To: ${from}`,
        'Subject: complaint about message from 192.0.2.10',
        'Message-ID: <jmr-1@webmail.test>',
        'Date: Tue, 24 Nov 2026 12:10:00 +0000',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="M"',
        '',
        '--M',
        'Content-Type: message/rfc822',
        'Content-Disposition: inline',
        '',
        ...ours(from, 'plain@fbl.test', sentTo('plain@fbl.test')),
        '',
        'Hi there',
        '--M--',
        '',
      ]),
    );
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 3, alreadyStored: 0 });

    const stored = await replies(inbox.id);
    expect(stored.map((r) => [r.bouncedEmail, r.kind, r.complaint, r.campaignId]).sort()).toEqual([
      ['arf@fbl.test', 'bounce', true, campaign.id],
      ['plain@fbl.test', 'bounce', true, campaign.id],
      ['ses@fbl.test', 'bounce', true, campaign.id],
    ]);
    expect(await suppressed()).toEqual([
      'arf@fbl.test complaint complaint',
      'plain@fbl.test complaint complaint',
      'ses@fbl.test complaint complaint',
    ]);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ unsubscribed: 3, active: 1 });
    const { body } = await server.request('GET', '/api/outreach/stats', { key });
    expect(body.days.at(-1)).toMatchObject({ sent: 4, complained: 3, bounced: 0, replied: 0 });
    expect(body.totals).toMatchObject({ sent14d: 4, complaints14d: 3, complaintRate14d: 0.75, bounced14d: 0 });

    // Read again after a lost cursor: stored once, counted once.
    await mongoose.connection.db!.collection('outreach_mailbox_cursors').deleteOne({ _id: inbox.id });
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 0, alreadyStored: 3 });
    expect((await server.request('GET', '/api/outreach/stats', { key })).body.totals).toMatchObject({ complaints14d: 3 });
    expect(await followedUp()).toEqual(['calm@fbl.test']);
  });
});

describe('returned mail without a report part', () => {
  it('is a bounce, never a reply: a carrier gateway answering "Re:" from post_master, a daemon with a localised subject, a forwarded bounce', async () => {
    const leads = ['5550142@txt.carrier.test', 'sato@mobile.test', 'gone@old.test', 'fine@ok.test'];
    const { inbox, campaign, from, sentTo, suppressed, followedUp } = await campaignThatSent('lou', leads);
    // Apache James at a carrier: a "Re:" subject and In-Reply-To, the failed recipient in the text only.
    await imap.append(
      'lou',
      crlf([
        'From: post_master@txt.carrier.test',
        `To: ${from}`,
        'Subject: Re:Hello',
        'Message-ID: <james-1@txt.carrier.test>',
        `In-Reply-To: ${sentTo('5550142@txt.carrier.test')}`,
        'Date: 24 Nov 2026 10:00:00 -0000',
        '',
        'Error: Invalid user address',
        '',
        'Error message below:',
        '550 - Requested action not taken: no such user here',
        '',
        'Message details:',
        '  Subject: Hello',
        `  MAIL FROM: ${from}`,
        '  RCPT TO: 5550142@txt.carrier.test',
        '',
      ]),
    );
    // A no-reply sender, a null reverse path and a Japanese subject ("mail delivery error"), the copy attached.
    await imap.append(
      'lou',
      crlf([
        'Return-Path: <>',
        'From: no-reply@mta.mobile.test',
        `To: ${from}`,
        'Subject: =?UTF-8?B?44Oh44O844Or6YWN5L+h44Ko44Op44O8?=',
        'Message-ID: <jp-1@mta.mobile.test>',
        'Date: Tue, 24 Nov 2026 11:00:00 +0900',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="J"',
        '',
        '--J',
        'Content-Type: text/plain; charset=UTF-8',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('宛先へ送信できませんでした。\n宛先: <sato@mobile.test>\n').toString('base64'),
        '--J',
        'Content-Type: message/rfc822',
        'Content-Disposition: attachment',
        '',
        ...ours(from, 'sato@mobile.test', sentTo('sato@mobile.test')),
        '',
        'Hi there',
        '--J--',
        '',
      ]),
    );
    // A colleague forwards a Sendmail bounce: the report's fields quoted in the text.
    await imap.append(
      'lou',
      crlf([
        `From: Colleague <colleague@acme.test>`,
        `To: ${from}`,
        'Subject: Fwd: Returned mail: see transcript for details',
        'Message-ID: <fwd-1@acme.test>',
        'Date: Tue, 24 Nov 2026 12:00:00 +0000',
        '',
        'This came back to me.',
        '',
        'Begin forwarded message:',
        '',
        '> From: Mail Delivery Subsystem <MAILER-DAEMON@acme.test>',
        '> Subject: Returned mail: see transcript for details',
        '>',
        '> Final-Recipient: RFC822; gone@old.test',
        '> Action: failed',
        '> Status: 5.1.1',
        '> Diagnostic-Code: SMTP; 550 5.1.1 <gone@old.test>... User unknown',
        '>',
        `> Message-ID: ${sentTo('gone@old.test')}`,
        '> To: gone@old.test',
        '',
      ]),
    );
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 3, alreadyStored: 0 });

    const stored = await replies(inbox.id);
    expect(stored.map((r) => [r.bouncedEmail, r.kind, r.bounceType, r.campaignId]).sort()).toEqual([
      ['5550142@txt.carrier.test', 'bounce', 'hard', campaign.id],
      ['gone@old.test', 'bounce', 'hard', campaign.id],
      ['sato@mobile.test', 'bounce', 'hard', campaign.id],
    ]);
    expect(await suppressed()).toEqual([
      '5550142@txt.carrier.test hard_bounce bounce_message',
      'gone@old.test hard_bounce bounce_message',
      'sato@mobile.test hard_bounce bounce_message',
    ]);
    expect(await followedUp()).toEqual(['fine@ok.test']);
  });

  it('leaves a person who writes about undelivered mail and being away a reply', async () => {
    const { inbox, from, sentTo, suppressed, followedUp } = await campaignThatSent('max', ['rachel@build.test', 'other@build.test']);
    await imap.append(
      'max',
      crlf([
        'From: Rachel <rachel@build.test>',
        `To: ${from}`,
        'Subject: Re: Hello',
        'Message-ID: <r-1@build.test>',
        `In-Reply-To: ${sentTo('rachel@build.test')}`,
        'Date: Tue, 24 Nov 2026 13:00:00 +0000',
        '',
        'Sorry, I was out of office until today and my mailbox was full, so your first',
        'note was undeliverable (our server said "550 5.2.2 mailbox full"). We run',
        '550 sites. A call on Thursday?',
        '',
        'From: Ada <ada@acme.test>',
        'Sent: Tuesday, November 24, 2026 9:00 AM',
        'To: Rachel <rachel@build.test>',
        'Subject: Hello',
        '',
      ]),
    );
    await readMailboxes();
    expect((await replies(inbox.id)).map((r) => [r.kind, r.bouncedEmail])).toEqual([['reply', null]]);
    expect(await suppressed()).toEqual([]);
    expect(await followedUp()).toEqual(['other@build.test']);
  });
});
