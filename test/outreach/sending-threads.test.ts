import { afterAll, describe, expect, it } from 'vitest';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { createCampaign, createInbox, createSequence, enroll, mailTo, outreachEnv, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
afterAll(closeTransports);

describe('threads', () => {
  it('sends a reply step in the thread of the latest new step the lead received, and as a new thread when it received none', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, [
      { subject: 'Intro', body_html: '<p>About {{company}}</p>' },
      { wait_days: 0, thread_mode: 'reply', subject: '', body_html: '<p>Following up</p>' },
      { wait_days: 0, subject: 'Another angle', body_html: '<p>A new thought</p>' },
      { wait_days: 0, thread_mode: 'reply', subject: '', body_html: '<p>Last note</p>' },
    ]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    // The second lead has no company: its first step is skipped, so it never receives the message the reply answers.
    const leads = await importLeads(server, key, [{ email: 'full@x.test', company: 'Acme' }, { email: 'nocompany@x.test' }]);
    await enroll(
      server,
      key,
      campaign.id,
      leads.map((lead) => lead.id),
    );
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    await runOutreachPass();

    const threadOf = (email: string) =>
      mailTo(smtp, email).map((mail) => ({
        subject: mail.parsed.subject,
        id: mail.parsed.messageId,
        inReplyTo: mail.header('In-Reply-To') ?? null,
        references: mail.header('References') ?? null,
      }));
    const full = threadOf('full@x.test');
    expect(full.map(({ subject, inReplyTo, references }) => [subject, inReplyTo, references])).toEqual([
      ['Intro', null, null],
      ['Re: Intro', full[0]!.id, full[0]!.id],
      ['Another angle', null, null],
      ['Re: Another angle', full[2]!.id, full[2]!.id],
    ]);
    const skipped = threadOf('nocompany@x.test');
    expect(skipped.map(({ subject, inReplyTo, references }) => [subject, inReplyTo, references])).toEqual([
      // The reply step opens the thread itself, with the subject of the step that was to open it.
      ['Intro', null, null],
      ['Another angle', null, null],
      ['Re: Another angle', skipped[1]!.id, skipped[1]!.id],
    ]);
  });

  it('answers in the thread a reply step opened, when the step before it did not go out', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, [
      { subject: 'Intro', body_html: '<p>About {{company}}</p>' },
      { wait_days: 0, thread_mode: 'reply', subject: '', body_html: '<p>Following up</p>' },
      { wait_days: 0, thread_mode: 'reply', subject: '', body_html: '<p>Last note</p>' },
    ]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const leads = await importLeads(server, key, [{ email: 'alone@x.test' }]);
    await enroll(server, key, campaign.id, [leads[0]!.id]);
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    await runOutreachPass();

    const mails = mailTo(smtp, 'alone@x.test');
    expect(mails.map((mail) => [mail.parsed.subject, mail.header('In-Reply-To') ?? null])).toEqual([
      ['Intro', null],
      ['Re: Intro', mails[0]!.parsed.messageId],
    ]);
  });
});
