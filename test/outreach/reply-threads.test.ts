import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readMailboxes } from '../../src/outreach/replies/read-mailboxes.ts';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useImapServer } from '../support/imap-server.ts';
import { importLeads } from '../support/leads.ts';
import { createCampaign, createInbox, createSequence, enroll, mailTo, outreachEnv, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

/** Answering a reply in its thread and reading the conversation, over a real SMTP server and a real Dovecot. */
const server = useApiServer(outreachEnv);
const clock = useTestClock();
const smtp = useSmtpServer();
const imap = useImapServer({ first: 'secret', second: 'secret', third: 'secret' });

beforeEach(() => smtp.reset());
afterAll(closeTransports);

/** A Date header `minutes` from now (after the campaign's step went out). */
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toUTCString().replace('GMT', '+0000');

/** A campaign's first step sent from `user`'s inbox to `leadEmail`: the workspace, the inbox and the message that went out. */
async function sentCampaign(user: string, leadEmail: string) {
  const { apiKey: key } = await createTestWorkspace('starter');
  const from = `${user}@acme.test`;
  const inbox = await createInbox(server, key, smtp, {
    from,
    imap: { host: imap.host, port: imap.port, secure: false, user, password: 'secret' },
  });
  const sequence = await createSequence(server, key, [{ subject: 'Hello', body_html: '<p>Hi, how is it going?</p>' }]);
  const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
  const [lead] = await importLeads(server, key, [{ email: leadEmail }]);
  await enroll(server, key, campaign.id, [lead!.id]);
  await updateCampaign(server, key, { id: campaign.id, status: 'active' });
  await runOutreachPass();
  const [first] = mailTo(smtp, leadEmail);
  return { key, from, inbox, campaign, lead: lead!, first: first! };
}

describe('POST /api/outreach/replies/{id}/reply and GET /api/outreach/replies/{id}', () => {
  it('answers in the thread, from the inbox, Re: not stacked, with In-Reply-To and References, and shows the conversation', async () => {
    const { key, from, inbox, campaign, lead, first } = await sentCampaign('first', 'eager@a.test');
    await imap.append(
      'first',
      [
        'From: Eager <eager@a.test>',
        `To: ${from}`,
        'Subject: RE: Hello',
        `In-Reply-To: ${first.parsed.messageId}`,
        'Message-ID: <reply-1@a.test>',
        `Date: ${later(1)}`,
        '',
        'Sounds good, can we talk on Thursday?',
        '',
      ].join('\r\n'),
    );
    await readMailboxes();
    const [reply] = (await server.request('GET', '/api/outreach/replies', { key })).body.replies;
    expect(reply).toMatchObject({ kind: 'reply', campaign_id: campaign.id, lead_id: lead.id });

    clock.advance(2 * 60_000); // answered after it came, as a person would
    const res = await server.request('POST', `/api/outreach/replies/${reply.id}/reply`, {
      key,
      body: { body_html: '<p>Thursday at 10 works.</p>' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const answers = mailTo(smtp, 'eager@a.test').slice(1); // after the campaign's step
    expect(answers).toHaveLength(1);
    const [answer] = answers;
    expect(answer!.parsed.subject).toBe('Re: Hello');
    expect(answer!.parsed.from?.value[0]?.address).toBe(from);
    expect(answer!.parsed.inReplyTo).toBe('<reply-1@a.test>');
    expect(answer!.header('References')?.split(/\s+/)).toEqual([first.parsed.messageId, '<reply-1@a.test>']);
    expect(answer!.parsed.html).toContain('<p>Thursday at 10 works.</p>');
    expect(res.body.message).toMatchObject({
      status: 'sent',
      to: 'eager@a.test',
      subject: 'Re: Hello',
      inbox_id: inbox.id,
      lead_id: lead.id,
      message_id: answer!.parsed.messageId,
    });

    // The lead answers the answer (AW: Re: …): it belongs to the same campaign, and answering it does not stack Re: either.
    await imap.append(
      'first',
      [
        'From: Eager <eager@a.test>',
        `To: ${from}`,
        'Subject: AW: Re: Hello',
        `In-Reply-To: ${answer!.parsed.messageId}`,
        'Message-ID: <reply-2@a.test>',
        `Date: ${later(3)}`,
        '',
        'Great, see you then.',
        '',
      ].join('\r\n'),
    );
    await readMailboxes();
    const latest = (await server.request('GET', '/api/outreach/replies', { key })).body.replies[0];
    expect(latest).toMatchObject({ campaign_id: campaign.id, lead_id: lead.id, body_text: 'Great, see you then.' });
    clock.advance(2 * 60_000);
    const again = await server.request('POST', `/api/outreach/replies/${latest.id}/reply`, {
      key,
      body: { body_html: '<p>Done.</p>', body_text: 'Done, invite sent.' },
    });
    expect(again.status).toBe(201);
    const second = mailTo(smtp, 'eager@a.test')[2]!;
    expect(second.parsed.subject).toBe('Re: Hello');
    expect(second.parsed.text).toContain('Done, invite sent.');
    expect(second.header('References')?.split(/\s+/)).toEqual([
      first.parsed.messageId,
      '<reply-1@a.test>',
      answer!.parsed.messageId,
      '<reply-2@a.test>',
    ]);

    const conversation = await server.request('GET', `/api/outreach/replies/${reply.id}`, { key });
    expect(conversation.status).toBe(200);
    expect(conversation.body.reply).toMatchObject({ id: reply.id, kind: 'reply' });
    expect(
      conversation.body.thread.map((m: Record<string, string>) => [m.direction, m.kind, m.message_id, m.subject, m.from, m.to]),
    ).toEqual([
      ['out', 'step', first.parsed.messageId, 'Hello', from, 'eager@a.test'],
      ['in', 'reply', '<reply-1@a.test>', 'RE: Hello', 'eager@a.test', from],
      ['out', 'answer', answer!.parsed.messageId, 'Re: Hello', from, 'eager@a.test'],
      ['in', 'reply', '<reply-2@a.test>', 'AW: Re: Hello', 'eager@a.test', from],
      ['out', 'answer', second.parsed.messageId, 'Re: Hello', from, 'eager@a.test'],
    ]);
    const bodies = conversation.body.thread.map((m: { body_text: string }) => m.body_text);
    expect(bodies[0]).toContain('Hi, how is it going?');
    expect(bodies[1]).toBe('Sounds good, can we talk on Thursday?');
    expect(bodies[2]).toContain('Thursday at 10 works.');
    expect(bodies[4]).toBe('Done, invite sent.');
    const times = conversation.body.thread.map((m: { at: string }) => Date.parse(m.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('answers a bounce or an automatic reply with 409, and holds the rules of a direct send', async () => {
    const { key, from, inbox, first } = await sentCampaign('second', 'busy@b.test');
    const mail = (id: string, subject: string, extra: string[], date: string) =>
      imap.append(
        'second',
        [
          'From: busy@b.test',
          `To: ${from}`,
          `Subject: ${subject}`,
          `In-Reply-To: ${first.parsed.messageId}`,
          `Message-ID: <${id}@b.test>`,
          `Date: ${date}`,
          ...extra,
          '',
          'Text.',
          '',
        ].join('\r\n'),
      );
    await mail('ooo', 'Automatic reply: Hello', ['Auto-Submitted: auto-replied'], later(1));
    await mail('person', 'Re: Hello', [], later(2));
    await imap.append(
      'second',
      [
        'From: Mail Delivery System <MAILER-DAEMON@mx.elsewhere.test>',
        `To: ${from}`,
        'Subject: Undelivered Mail Returned to Sender',
        `Date: ${later(3)}`,
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
        'Reporting-MTA: dns; mx.elsewhere.test',
        '',
        'Final-Recipient: rfc822; nobody@elsewhere.test',
        'Action: failed',
        'Status: 5.1.1',
        '',
        '--B--',
        '',
      ].join('\r\n'),
    );
    await readMailboxes();
    const { replies } = (await server.request('GET', '/api/outreach/replies', { key })).body;
    const automatic = replies.find((r: { kind: string }) => r.kind === 'auto_reply');
    const person = replies.find((r: { kind: string }) => r.kind === 'reply');
    const answer = (id: string, apiKey = key) =>
      server.request('POST', `/api/outreach/replies/${id}/reply`, { key: apiKey, body: { body_html: '<p>Thanks</p>' } });

    const refused = await answer(automatic.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', kind: 'auto_reply' });
    const bounce = replies.find((r: { kind: string }) => r.kind === 'bounce');
    const bounced = await answer(bounce.id);
    expect(bounced.status).toBe(409);
    expect(bounced.body).toMatchObject({ code: 'conflict', kind: 'bounce' });

    await server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key, body: { paused: true } });
    expect((await answer(person.id)).body.code).toBe('inbox_paused');
    await server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key, body: { paused: false } });
    await server.request('POST', '/api/outreach/suppressions', { key, body: { entries: ['busy@b.test'] } });
    const attempts = smtp.attempts('busy@b.test'); // the campaign's step
    const suppressed = await answer(person.id);
    expect(suppressed.status).toBe(422);
    expect(suppressed.body.code).toBe('suppressed');
    expect(smtp.attempts('busy@b.test')).toBe(attempts);

    expect((await answer(crypto.randomUUID())).status).toBe(404);
    const other = await createTestWorkspace('starter');
    expect((await answer(person.id, other.apiKey)).status).toBe(404);
    expect((await server.request('GET', `/api/outreach/replies/${person.id}`, { key: other.apiKey })).status).toBe(404);
    const free = await createTestWorkspace('free');
    const locked = await answer(person.id, free.apiKey);
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('outreach_locked');
    expect((await server.request('GET', `/api/outreach/replies/${person.id}`, { key: free.apiKey })).status).toBe(403);
  });

  it('answers 422 message_rejected when the server refuses the sender for good', async () => {
    const { key, from, first } = await sentCampaign('third', 'gone@c.test');
    await imap.append(
      'third',
      [
        'From: gone@c.test',
        `To: ${from}`,
        'Subject: Re: Hello',
        `In-Reply-To: ${first.parsed.messageId}`,
        'Message-ID: <last@c.test>',
        '',
        'Last words.',
        '',
      ].join('\r\n'),
    );
    await readMailboxes();
    const [reply] = (await server.request('GET', '/api/outreach/replies', { key })).body.replies;
    smtp.script('gone@c.test', 'reject');
    clock.advance(2 * 60_000); // answered after it came, as a person would
    const res = await server.request('POST', `/api/outreach/replies/${reply.id}/reply`, { key, body: { body_html: '<p>Hi</p>' } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('message_rejected');
  });
});
