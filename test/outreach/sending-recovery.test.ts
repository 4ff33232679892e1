import mongoose from 'mongoose';
import { afterAll, describe, expect, it } from 'vitest';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
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

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
afterAll(closeTransports);

const minute = 60_000;
const collection = (name: string) => mongoose.connection.db!.collection<{ _id: string; [field: string]: unknown }>(name);

describe('the send hold of a worker that died', () => {
  it('is closed from the message records: what was recorded is counted once, and only the slots of messages that went out or may have stay taken', async () => {
    const { apiKey: key } = await createTestWorkspace('starter');
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, [{ subject: 'Hi', body_html: '<p>Hello</p>' }]);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const leads = await importLeads(
      server,
      key,
      ['sent@x.test', 'cut@x.test', 'never@x.test'].map((email) => ({ email })),
    );
    await enroll(
      server,
      key,
      campaign.id,
      leads.map((lead) => lead.id),
    );

    // What a worker leaves when it dies eleven minutes ago mid-chunk: three slots taken under its hold; the first
    // message accepted and recorded, its batch of counts marked on the hold and written to the campaign's counters
    // but not yet to the statistics; the second in flight; the third never claimed.
    const { workspaceId } = (await collection('outreach_campaigns').findOne({ _id: campaign.id }))!;
    const at = new Date(Date.now() - 11 * minute);
    const recordIds = leads.map((lead) => `${campaign.id}:${lead.id}:0`);
    const record = (i: number, fields: Record<string, unknown>) => ({
      _id: recordIds[i]!,
      workspaceId,
      brandId: campaign.brand_id,
      campaignId: campaign.id,
      enrollmentId: `${campaign.id}:${leads[i]!.id}`,
      leadId: leads[i]!.id,
      inboxId: inbox.id,
      step: 0,
      variant: 0,
      to: leads[i]!.email,
      subject: 'Hi',
      messageId: `<dead${i}@acme.test>`,
      inReplyTo: null,
      attempts: 1,
      hold: 'dead-hold',
      createdAt: at,
      updatedAt: at,
      ...fields,
    });
    await collection('outreach_messages').insertMany([
      record(0, { status: 'sent', sentAt: at, counted: ['sent'] }),
      record(1, { status: 'claimed' }),
    ]);
    await collection('outreach_send_holds').insertOne({
      _id: 'dead-hold',
      at,
      records: recordIds,
      effects: { writer: 'dead', seq: 7, at },
    });
    const day = new Date().toISOString().slice(0, 10);
    const hour = Math.floor(Date.now() / 3_600_000);
    const expiresAt = new Date(Date.now() + 27 * 3_600_000);
    await collection('outreach_send_counts').insertMany([
      {
        _id: `campaign:${campaign.id}:${day}`,
        scope: `campaign:${campaign.id}`,
        period: day,
        taken: 3,
        holds: { 'dead-hold': 3 },
        expiresAt,
      },
      {
        _id: `inbox:${inbox.id}:${hour}`,
        scope: `inbox:${inbox.id}`,
        period: String(hour),
        taken: 3,
        holds: { 'dead-hold': 3 },
        expiresAt,
      },
    ]);
    await collection('outreach_campaign_counters').updateOne(
      { _id: campaign.id },
      // The counters document's sent is a map of maps: the driver's types cannot follow the dotted path.
      { $inc: { 'sent.0.0': 1 }, $set: { 'applied.dead': 7 } } as Record<string, unknown>,
    );

    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    expect(await runOutreachPass()).toMatchObject({ sent: 2, interrupted: 1 });
    await runOutreachPass();

    // Only the lead whose message was never claimed got one now.
    expect(smtp.received.map((mail) => mail.to.join())).toEqual(['never@x.test']);
    expect(mailTo(smtp, 'never@x.test')).toHaveLength(1);
    const stored = await collection('outreach_messages').find({ campaignId: campaign.id }).toArray();
    expect(stored.map((message) => [message.to, message.status]).sort()).toEqual([
      ['cut@x.test', 'interrupted'],
      ['never@x.test', 'sent'],
      ['sent@x.test', 'sent'],
    ]);
    // Two sent, each counted once (the campaign's counters had the dead worker's batch, the statistics did not);
    // the one in flight is unknown: not failed, and it keeps its slot, as the two sent keep theirs.
    expect((await getCampaign(server, key, campaign.id)).progress).toMatchObject({
      finished: 3,
      active: 0,
      interrupted: 1,
      failed: 0,
      steps: [{ step: 0, sent: 2 }],
    });
    const stats = await server.request('GET', '/api/outreach/stats?brand=all', { key });
    expect(stats.body.totals).toMatchObject({ sent14d: 2, failed14d: 0, sent24h: 3 });
    const listed = (await server.request('GET', '/api/outreach/inboxes', { key })).body.inboxes[0];
    expect(listed).toMatchObject({ sent24h: 3, sent14d: 2, failed14d: 0, health: 100 });
    expect(await collection('outreach_send_holds').countDocuments({})).toBe(0);
    // The message the dead worker sent is in its lead's activity once, at the time it went; the one cut off is not.
    const activity = async (lead: { id: string }) =>
      (await server.request('GET', `/api/leads/${lead.id}/activity`, { key })).body.activity as Array<{ type: string; at: string }>;
    expect((await activity(leads[0]!)).filter((entry) => entry.type === 'outreach.email.sent')).toEqual([
      expect.objectContaining({ at: at.toISOString(), message_id: recordIds[0] }),
    ]);
    expect((await activity(leads[1]!)).map((entry) => entry.type)).not.toContain('outreach.email.sent');
  });
});
