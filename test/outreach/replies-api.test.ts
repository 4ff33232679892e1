import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { analyzePendingReplies } from '../../src/outreach/replies/analysis.service.ts';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useImapServer } from '../support/imap-server.ts';
import { importLeads } from '../support/leads.ts';
import { createCampaign, createInbox, createSequence, enroll, mailTo, outreachEnv, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/** GET /api/outreach/replies over replies read from a real IMAP server, analysed by the heuristic classifier (no model configured). */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret' });
const imap = useImapServer({ pro: 'secret', starter: 'secret' });

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const leads = ['eager@a.test', 'stop@b.test', 'refer@c.test', 'away@d.test', 'gone@e.test'];

/** A workspace on `plan` whose campaign wrote to every lead above, and what came back in its mailbox, read and analysed. */
async function workspaceWithReplies(plan: 'starter' | 'pro', user: string) {
  const { apiKey: key } = await createTestWorkspace(plan);
  const from = `${user}@acme.test`;
  const inbox = await createInbox(server, key, smtp, {
    from,
    imap: { host: imap.host, port: imap.port, secure: false, user, password: 'secret' },
  });
  const sequence = await createSequence(server, key, [{ subject: 'Hello', body_html: '<p>Hi</p>' }]);
  const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
  const stored = await importLeads(
    server,
    key,
    leads.map((email) => ({ email })),
  );
  await enroll(
    server,
    key,
    campaign.id,
    stored.map((lead) => lead.id),
  );
  await updateCampaign(server, key, { id: campaign.id, status: 'active' });
  await runOutreachPass();
  const answer = (email: string, headers: string[], body: string) => {
    const original = mailTo(smtp, email)[0]!.parsed.messageId!;
    return imap.append(
      user,
      [
        `From: ${email}`,
        `To: ${from}`,
        `In-Reply-To: ${original}`,
        `Message-ID: <${email.replace('@', '.')}-${user}@x.test>`,
        ...headers,
        '',
        body,
        '',
      ].join('\r\n'),
    );
  };
  await answer(
    'eager@a.test',
    ['Subject: Re: Hello', 'Date: Tue, 24 Nov 2026 10:00:00 +0000'],
    'Sounds good, can we set up a call on Thursday?',
  );
  await answer('stop@b.test', ['Subject: Re: Hello', 'Date: Tue, 24 Nov 2026 11:00:00 +0000'], 'Please remove me from your list.');
  await answer(
    'refer@c.test',
    ['Subject: Re: Hello', 'Date: Tue, 24 Nov 2026 12:00:00 +0000'],
    'I am not the right person, please reach out to dana@c.test instead.',
  );
  await answer(
    'away@d.test',
    ['Subject: Automatic reply: Hello', 'Auto-Submitted: auto-replied', 'Date: Tue, 24 Nov 2026 13:00:00 +0000'],
    'I am out of the office until Monday.',
  );
  const original = mailTo(smtp, 'gone@e.test')[0]!.parsed.messageId!;
  await imap.append(
    user,
    [
      'From: Mail Delivery System <MAILER-DAEMON@mx.e.test>',
      `To: ${from}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Date: Tue, 24 Nov 2026 14:00:00 +0000',
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
      'Reporting-MTA: dns; mx.e.test',
      '',
      'Final-Recipient: rfc822; gone@e.test',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 <gone@e.test>: Recipient address rejected: User unknown',
      '',
      '--B',
      'Content-Type: text/rfc822-headers',
      '',
      `Message-ID: ${original}`,
      'Subject: Hello',
      '',
      '--B--',
      '',
    ].join('\r\n'),
  );
  await readMailboxes();
  await analyzePendingReplies();
  return { key, campaign, leads: stored };
}

describe('GET /api/outreach/replies', () => {
  it('lists what came back with its kind and sentiment, counts for chips, and a sentiment summary (Pro)', async () => {
    const { key, campaign, leads: stored } = await workspaceWithReplies('pro', 'pro');
    const res = await server.request('GET', '/api/outreach/replies', { key });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(5);
    expect(
      res.body.replies.map((r: { from_email: string; kind: string; sentiment: string | null }) => [r.from_email, r.kind, r.sentiment]),
    ).toEqual([
      ['MAILER-DAEMON@mx.e.test', 'bounce', null],
      ['away@d.test', 'auto_reply', 'ooo'],
      ['refer@c.test', 'reply', 'referral'],
      ['stop@b.test', 'reply', 'unsubscribe'],
      ['eager@a.test', 'reply', 'positive'],
    ]);
    const [bounce, , referral] = res.body.replies;
    expect(bounce).toMatchObject({ bounce_type: 'hard', bounce_code: '5.1.1', campaign_id: campaign.id, lead_id: stored[4]!.id });
    expect(referral).toMatchObject({ intent: 'referral:dana@c.test', campaign_id: campaign.id, analyzed_at: expect.any(String) });
    expect(res.body.counts.kind).toEqual({ reply: 3, bounce: 1, auto_reply: 1 });
    expect(res.body.sentiment).toMatchObject({ analyzed: 3, positive_rate: 1 / 3 });

    const positive = await server.request('GET', '/api/outreach/replies?kind=reply&sentiment=positive', { key });
    expect(positive.body).toMatchObject({
      total: 1,
      replies: [{ from_email: 'eager@a.test' }],
      counts: { kind: { reply: 3, bounce: 1, auto_reply: 1 } },
    });

    // What came back was acted on: the unsubscribe reply and the hard bounce put their addresses on the list.
    const suppressions = await server.request('GET', '/api/outreach/suppressions', { key });
    expect(
      suppressions.body.suppressions.map((s: { email: string; reason: string; source: string }) => [s.email, s.reason, s.source]).sort(),
    ).toEqual([
      ['gone@e.test', 'hard_bounce', 'bounce_message'],
      ['stop@b.test', 'unsubscribe', 'reply'],
    ]);
  });

  it('leaves the sentiment out on plans below Pro, and refuses free plans', async () => {
    const { key } = await workspaceWithReplies('starter', 'starter');
    const res = await server.request('GET', '/api/outreach/replies?kind=reply', { key });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    for (const reply of res.body.replies)
      for (const field of ['sentiment', 'sentiment_score', 'intent', 'summary', 'analyzed_at']) expect(reply).not.toHaveProperty(field);
    expect(res.body).not.toHaveProperty('sentiment');
    expect(res.body.counts).not.toHaveProperty('sentiment');

    const free = await createTestWorkspace('free');
    expect((await server.request('GET', '/api/outreach/replies', { key: free.apiKey })).body).toMatchObject({ code: 'plan_required' });
    const bad = await server.request('GET', '/api/outreach/replies?limit=501', { key });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('limit');
  });
});
