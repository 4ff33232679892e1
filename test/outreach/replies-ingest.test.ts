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
 * Replies, bounces and automatic messages read back from a real IMAP server
 * (Dovecot on 127.0.0.1): messages are put in the inbox's mailbox with IMAP
 * APPEND, as delivery would, then the mailboxes are read.
 */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ ada: 'secret', bob: 'secret', carol: 'secret', dave: 'secret', erin: 'secret', fay: 'secret' });
const clock = useTestClock();
const dayMs = 24 * 3_600_000;

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);
const crlf = (lines: string[]) => lines.join('\r\n');

/** A workspace whose inbox reads `imapUser`'s mailbox, and an active two-step campaign that has sent step one to `emails`. */
async function campaignThatSent(imapUser: string, emails: string[]) {
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
  return { key, inbox, campaign, leads, from, sentTo };
}

describe('reading replies', () => {
  it("stores a reply once, matched to what it answers, with only its new text, and stops the lead's sequence there", async () => {
    const { key, inbox, campaign, leads, from, sentTo } = await campaignThatSent('ada', ['grace@navy.test', 'alan@bletchley.test']);
    const original = sentTo('grace@navy.test');
    await imap.append(
      'ada',
      crlf([
        'From: Grace Hopper <grace@navy.test>',
        `To: ${from}`,
        'Subject: Re: Hello',
        'Message-ID: <reply-1@navy.test>',
        `In-Reply-To: ${original}`,
        `References: ${original}`,
        'Date: Mon, 23 Nov 2026 10:00:00 +0000',
        '',
        'Sounds good, let us talk on Tuesday.',
        '',
        'On Mon, Nov 23, 2026 at 9:00 AM Ada Byron <ada@acme.test> wrote:',
        '> Hi there',
        '',
      ]),
    );

    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });
    const replies = await collection('outreach_replies').find({ inboxId: inbox.id }).toArray();
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({
      kind: 'reply',
      campaignId: campaign.id,
      leadId: leads[0]!.id,
      fromEmail: 'grace@navy.test',
      fromName: 'Grace Hopper',
      subject: 'Re: Hello',
      bodyText: 'Sounds good, let us talk on Tuesday.',
      messageId: '<reply-1@navy.test>',
      effectsAppliedAt: expect.any(Date),
    });
    // One event for it, with the reply as the replies list shows it.
    const events = await collection('events').find({ type: 'outreach.reply.received', 'data.id': replies[0]!._id }).toArray();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      kind: 'reply',
      lead_id: leads[0]!.id,
      campaign_id: campaign.id,
      from_email: 'grace@navy.test',
    });

    // Read again, nothing new; the lead that replied gets no follow-up, the other does.
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 0, alreadyStored: 0 });
    smtp.reset();
    clock.advance(3 * dayMs + 60_000);
    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to.join())).toEqual(['alan@bletchley.test']);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ replied: 1, finished: 1, active: 0 });
  });

  it('matches a reply that names none of our Message-IDs by its sender and subject', async () => {
    const { key, inbox, campaign, leads, from } = await campaignThatSent('erin', ['nohdr@x.test', 'other@x.test']);
    await imap.append(
      'erin',
      crlf(['From: nohdr@x.test', `To: ${from}`, 'Subject: AW: Hello', 'Message-ID: <nohdr@x.test>', '', 'Yes, interested.', '']),
    );
    await imap.append(
      'erin',
      crlf(['From: other@x.test', `To: ${from}`, 'Subject: Something else', 'Message-ID: <other@x.test>', '', 'A new topic.', '']),
    );
    await readMailboxes();
    const stored = await collection('outreach_replies').find({ inboxId: inbox.id }).sort({ fromEmail: 1 }).toArray();
    expect(stored.map((reply) => [reply.fromEmail, reply.campaignId, reply.leadId])).toEqual([
      ['nohdr@x.test', campaign.id, leads[0]!.id],
      ['other@x.test', null, null],
    ]);
    // The next tests' sending passes must not write to this campaign's other lead.
    await updateCampaign(server, key, { id: campaign.id, status: 'paused' });
  });

  it('holds the next step of a lead who is out of office until the date it gives', async () => {
    clock.set(Date.parse('2026-11-23T09:00:00Z'));
    const { key, inbox, campaign, from, sentTo } = await campaignThatSent('carol', ['away@ooo.test', 'here@ooo.test']);
    const original = sentTo('away@ooo.test');
    await imap.append(
      'carol',
      crlf([
        'From: away@ooo.test',
        `To: ${from}`,
        'Subject: Automatic reply: Hello',
        'Auto-Submitted: auto-replied',
        'Message-ID: <ooo-1@ooo.test>',
        `In-Reply-To: ${original}`,
        'Date: Mon, 23 Nov 2026 09:05:00 +0000',
        '',
        'I am out of the office until 2026-12-10 with limited access to email.',
        '',
      ]),
    );
    await readMailboxes();
    expect(await collection('outreach_replies').findOne({ inboxId: inbox.id })).toMatchObject({
      kind: 'auto_reply',
      oooUntil: new Date('2026-12-10T00:00:00Z'),
    });

    smtp.reset();
    clock.advance(3 * dayMs + 60_000);
    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to.join())).toEqual(['here@ooo.test']);
    clock.set(Date.parse('2026-12-10T00:01:00Z'));
    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to.join())).toEqual(['here@ooo.test', 'away@ooo.test']);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({ finished: 2 });
  });

  it('suppresses an address only after repeated soft bounces: three, on two days or more', async () => {
    const { key, from, sentTo } = await campaignThatSent('dave', ['full@box.test']);
    const original = sentTo('full@box.test');
    const softBounce = (n: number, date: string) =>
      imap.append(
        'dave',
        crlf([
          'From: MAILER-DAEMON@mx.box.test',
          `To: ${from}`,
          'Subject: Delivery Status Notification (Failure)',
          `Message-ID: <soft-${n}@mx.box.test>`,
          `Date: ${date}`,
          'MIME-Version: 1.0',
          'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
          '',
          '--B',
          'Content-Type: message/delivery-status',
          '',
          'Reporting-MTA: dns; mx.box.test',
          '',
          'Final-Recipient: rfc822; full@box.test',
          'Action: failed',
          'Status: 5.2.2',
          'Diagnostic-Code: smtp; 552 5.2.2 Mailbox full',
          '',
          '--B',
          'Content-Type: text/rfc822-headers',
          '',
          `Message-ID: ${original}`,
          '',
          '--B--',
          '',
        ]),
      );
    const suppressed = async () =>
      (await server.request('GET', '/api/outreach/suppressions', { key })).body.suppressions.map(
        (s: { email: string; source: string }) => `${s.email} ${s.source}`,
      );
    await softBounce(1, 'Mon, 23 Nov 2026 10:00:00 +0000');
    await softBounce(2, 'Mon, 23 Nov 2026 16:00:00 +0000');
    await readMailboxes();
    expect(await suppressed()).toEqual([]);
    await softBounce(3, 'Tue, 24 Nov 2026 10:00:00 +0000');
    await readMailboxes();
    expect(await suppressed()).toEqual(['full@box.test repeated_soft_bounces']);
    expect(await collection('outreach_replies').countDocuments({ bouncedEmail: 'full@box.test', bounceType: 'soft' })).toBe(3);
    const bounces = await collection('outreach_replies').find({ bouncedEmail: 'full@box.test' }).toArray();
    const events = await collection('events')
      .find({ type: 'outreach.bounce.received', 'data.id': { $in: bounces.map((b) => b._id) } })
      .toArray();
    expect(events).toHaveLength(3);
    for (const event of events) expect(event.data).toMatchObject({ kind: 'bounce', bounce_type: 'soft' });
  });

  it("takes each message once across a lost cursor, leaves the inbox's own copies out, and keeps what matches nothing", async () => {
    const { inbox, from } = await campaignThatSent('bob', ['lin@x.test']);
    await imap.append(
      'bob',
      crlf([`From: ${from}`, 'To: lin@x.test', 'Subject: Hello', 'Message-ID: <own@acme.test>', '', 'Hi there', '']),
    );
    await imap.append(
      'bob',
      crlf([
        'From: Someone <someone@else.test>',
        `To: ${from}`,
        'Subject: A question',
        'Message-ID: <q@else.test>',
        '',
        'Do you sell widgets?',
        '',
      ]),
    );
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 1, alreadyStored: 0 });

    // The cursor lost (as after a crash before it moved, or a rebuilt mailbox): every message is read again, none stored twice.
    await collection('outreach_mailbox_cursors').deleteOne({ _id: inbox.id });
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 0, alreadyStored: 1 });
    const replies = await collection('outreach_replies').find({ inboxId: inbox.id }).toArray();
    expect(replies).toEqual([
      expect.objectContaining({
        kind: 'reply',
        campaignId: null,
        leadId: null,
        fromEmail: 'someone@else.test',
        bodyText: 'Do you sell widgets?',
      }),
    ]);
  });

  it('keeps going past a message it cannot act on: a bounce about an address no list can hold, a message with no date', async () => {
    const { inbox, from } = await campaignThatSent('fay', ['fine@x.test']);
    await imap.append(
      'fay',
      crlf([
        'From: MAILER-DAEMON@mx.x.test',
        `To: ${from}`,
        'Subject: Undelivered Mail Returned to Sender',
        'Message-ID: <odd-bounce@mx.x.test>',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
        '',
        '--B',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; mx.x.test',
        '',
        'Final-Recipient: rfc822; root@localhost',
        'Action: failed',
        'Status: 5.1.1',
        '',
        '--B--',
        '',
      ]),
    );
    await imap.append(
      'fay',
      crlf(['From: fine@x.test', `To: ${from}`, 'Subject: Re: Hello', 'Date: not a date', 'Message-ID: <fine@x.test>', '', 'Thanks!', '']),
    );
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 2, alreadyStored: 0 });
    const stored = await collection('outreach_replies').find({ inboxId: inbox.id }).sort({ kind: 1 }).toArray();
    expect(
      stored.map((reply) => [
        reply.kind,
        reply.bouncedEmail,
        reply.receivedAt instanceof Date && !Number.isNaN(reply.receivedAt.getTime()),
      ]),
    ).toEqual([
      ['bounce', null, true],
      ['reply', null, true],
    ]);
  });

  it('records an unreachable mailbox on its cursor and waits before trying again', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp, {
      from: 'ada@acme.test',
      imap: { host: imap.host, port: imap.port, secure: false, user: 'ada', password: 'secret' },
    });
    // The server's login changes after the inbox was saved.
    await collection('outreach_inboxes').updateOne({ _id: inbox.id }, { $set: { 'imap.port': 9 } });
    const [report] = Object.entries(await readMailboxes())
      .filter(([id]) => id === inbox.id)
      .map(([, r]) => r);
    expect(report!.error).toMatch(/ECONNREFUSED/);
    expect(await collection('outreach_mailbox_cursors').findOne({ _id: inbox.id })).toMatchObject({
      error: expect.stringMatching(/ECONNREFUSED/),
      failures: 1,
      checkedAt: expect.any(Date),
    });
    expect((await readMailboxes())[inbox.id]).toEqual({ stored: 0, alreadyStored: 0, skipped: 'backing_off' });
    const [listed] = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes;
    expect(listed).toMatchObject({ imapCheckedAt: expect.any(String), imapError: expect.stringMatching(/ECONNREFUSED/) });
    // The inbox is not used by this file's other tests' passes.
    await collection('outreach_inboxes').deleteOne({ _id: inbox.id });
  });
});
