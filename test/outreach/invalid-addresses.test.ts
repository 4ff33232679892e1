import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { recordEmailValidations } from '../../src/leads/lead-validation.service.ts';
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

/** Nothing is sent to an address email validation found `invalid`: not enrolled, not sent by /send, not sent its next step. */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
const clock = useTestClock();
const dayMs = 24 * 3_600_000;

beforeEach(() => smtp.reset());
afterAll(closeTransports);

/** Writes verdicts to leads as a validation job does (`POST /api/leads/validate` settles its results with this). */
const validated = (workspaceId: string, leads: Array<{ id: string; email: string }>, status: string) =>
  recordEmailValidations(
    workspaceId,
    leads.map((lead) => ({
      lead,
      validation: {
        email_status: status,
        email_provider: 'other',
        email_is_role: false,
        email_is_free: false,
        email_validated_at: new Date(),
      },
    })),
  );

async function sender() {
  const workspace = await createTestWorkspace('starter');
  const inbox = await createInbox(server, workspace.apiKey, smtp);
  return { ...workspace, key: workspace.apiKey, inbox };
}

describe('an address validated invalid', () => {
  it('is not enrolled, and counted as invalid_email; every other verdict is', async () => {
    const { key, workspaceId, inbox } = await sender();
    const sequence = await createSequence(server, key, [{ subject: 'Hi', body_html: '<p>Hello</p>' }]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const verdicts = ['invalid', 'valid', 'accept_all', 'disposable', 'unknown'];
    const leads = await importLeads(
      server,
      key,
      [...verdicts, 'never'].map((verdict) => ({ email: `${verdict}@x.test` })),
    );
    for (const [n, verdict] of verdicts.entries()) await validated(workspaceId, [leads[n] as { id: string; email: string }], verdict);

    const result = await enroll(
      server,
      key,
      campaign.id,
      leads.map((lead) => lead.id),
    );
    expect(result).toEqual({
      enrolled: 5,
      skipped: { suppressed: 0, unsubscribed: 0, archived: 0, already_enrolled: 0, no_email: 0, invalid_email: 1, in_other_campaign: 0 },
    });
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    expect(mailTo(smtp, 'invalid@x.test')).toHaveLength(0);
    expect(
      smtp.received
        .map((mail) => mail.to)
        .flat()
        .sort(),
    ).toEqual(['accept_all@x.test', 'disposable@x.test', 'never@x.test', 'unknown@x.test', 'valid@x.test']);
  });

  it('is refused by POST /api/outreach/send with 422 invalid_email naming the status, given as a lead or as an address', async () => {
    const { key, workspaceId, inbox } = await sender();
    const [lead] = await importLeads(server, key, [{ email: 'Bounces@X.test' }]);
    await validated(workspaceId, [lead as { id: string; email: string }], 'invalid');
    const message = { inbox_id: inbox.id, subject: 'Hello', body_html: '<p>Hi</p>' };

    const byLead = await server.request('POST', '/api/outreach/send', { key, body: { ...message, lead_id: lead!.id } });
    expect(byLead.status).toBe(422);
    expect(byLead.body).toMatchObject({ code: 'invalid_email', field: 'lead_id', emailStatus: 'invalid' });
    expect(byLead.body.error).toContain('invalid');
    const byAddress = await server.request('POST', '/api/outreach/send', { key, body: { ...message, to: 'bounces@x.test' } });
    expect(byAddress.status).toBe(422);
    expect(byAddress.body).toMatchObject({ code: 'invalid_email', field: 'to', emailStatus: 'invalid' });
    expect(smtp.attempts('bounces@x.test')).toBe(0);

    // Once the email changes its verdict is gone, and the lead is written to.
    await server.request('PATCH', `/api/leads/${lead!.id}`, { key, body: { field: 'email', value: 'fixed@x.test' } });
    expect((await server.request('POST', '/api/outreach/send', { key, body: { ...message, lead_id: lead!.id } })).status).toBe(200);
    expect(mailTo(smtp, 'fixed@x.test')).toHaveLength(1);
  });

  it('found after enrollment stops the enrollment before its next step, counted as failed', async () => {
    const { key, workspaceId, inbox } = await sender();
    const sequence = await createSequence(server, key, [
      { subject: 'Hello', body_html: '<p>Hi</p>' },
      { wait_days: 2, thread_mode: 'reply', subject: '', body_html: '<p>Following up.</p>' },
    ]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const leads = await importLeads(server, key, [{ email: 'later-invalid@x.test' }, { email: 'fine@x.test' }]);
    await enroll(
      server,
      key,
      campaign.id,
      leads.map((lead) => lead.id),
    );
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    expect(smtp.received).toHaveLength(2);

    await validated(workspaceId, [leads[0] as { id: string; email: string }], 'invalid');
    clock.advance(2 * dayMs + 60_000);
    await runOutreachPass();
    expect(mailTo(smtp, 'later-invalid@x.test')).toHaveLength(1);
    expect(mailTo(smtp, 'fine@x.test')).toHaveLength(2);
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({
      enrolled: 2,
      active: 0,
      finished: 1,
      failed: 1,
      steps: [
        { step: 0, sent: 2 },
        { step: 1, sent: 1 },
      ],
    });
  });
});
