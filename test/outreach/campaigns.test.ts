import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { alwaysOpen, createCampaign, createInbox, createSequence, enroll, outreachEnv, updateCampaign } from '../support/outreach.ts';
import { useSmtpServer } from '../support/smtp-server.ts';

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();

async function parts(plan: 'free' | 'starter' = 'starter') {
  const workspace = await createTestWorkspace(plan);
  const key = workspace.apiKey;
  const inbox = await createInbox(server, key, smtp);
  const sequence = await createSequence(server, key, [{ subject: 'Hi', body_html: '<p>Hello</p>' }]);
  return { workspace, key, inbox, sequence };
}

const post = (key: string, body: Record<string, unknown>) => server.request('POST', '/api/outreach/campaigns', { key, body });
const patch = (key: string, body: Record<string, unknown>) => server.request('PATCH', '/api/outreach/campaigns', { key, body });

describe('creating and reading campaigns', () => {
  it("creates a draft with defaults, in the credential's brand, and reads it back with empty progress", async () => {
    const { workspace, key, inbox, sequence } = await parts();
    const res = await post(key, { name: 'Launch', sequence_id: sequence.id, smtp_config_id: inbox.id });
    expect(res.status).toBe(201);
    expect(res.body.campaign).toEqual({
      id: expect.any(String),
      name: 'Launch',
      status: 'draft',
      sequence_id: sequence.id,
      inbox_ids: [inbox.id],
      reply_to: null,
      daily_limit: 200,
      schedule: { timezone: 'UTC', days: [1, 2, 3, 4, 5], start_hour: 9, end_hour: 17 },
      priority: 0,
      track_opens: false,
      track_clicks: false,
      brand_id: workspace.brandId,
      progress: {
        enrolled: 0,
        active: 0,
        finished: 0,
        replied: 0,
        bounced: 0,
        unsubscribed: 0,
        removed: 0,
        failed: 0,
        interrupted: 0,
        steps: [],
        next_send_at: null,
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await server.request('GET', `/api/outreach/campaigns/${res.body.campaign.id}`, { key });
    expect(got.body.campaign).toEqual(res.body.campaign);
    const listed = await server.request('GET', '/api/outreach/campaigns', { key });
    expect(listed.body.campaigns.map((c: { id: string }) => c.id)).toEqual([res.body.campaign.id]);
  });

  it('answers 400 naming the field for each bad value', async () => {
    const { key, inbox, sequence } = await parts();
    const base = { name: 'X', sequence_id: sequence.id, inbox_ids: [inbox.id] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, inbox_ids: undefined }, 'inbox_ids'],
      [{ ...base, inbox_ids: [] }, 'inbox_ids'],
      [{ ...base, name: ' ' }, 'name'],
      [{ ...base, daily_limit: 0 }, 'daily_limit'],
      [{ ...base, reply_to: 'not an address' }, 'reply_to'],
      [{ ...base, schedule: { ...alwaysOpen, timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
      [{ ...base, schedule: { ...alwaysOpen, days: [1, 8] } }, 'schedule.days.1'],
      [{ ...base, schedule: { ...alwaysOpen, days: [2, 2] } }, 'schedule.days'],
      [{ ...base, schedule: { ...alwaysOpen, start_hour: 17, end_hour: 9 } }, 'schedule.end_hour'],
      [{ ...base, priority: 101 }, 'priority'],
      [{ ...base, status: 'active' }, 'status'],
    ];
    for (const [body, field] of cases) {
      const res = await post(key, body);
      expect(res.status, field).toBe(400);
      expect(res.body.field, JSON.stringify(res.body)).toBe(field);
    }
  });

  it("needs the workspace's own sequence and inboxes, of the campaign's brand", async () => {
    const { key, inbox, sequence } = await parts();
    const other = await parts();
    expect((await post(key, { name: 'X', sequence_id: other.sequence.id, inbox_ids: [inbox.id] })).body).toMatchObject({
      code: 'not_found',
      field: 'sequence_id',
    });
    expect((await post(key, { name: 'X', sequence_id: sequence.id, inbox_ids: [inbox.id, other.inbox.id] })).body).toMatchObject({
      code: 'not_found',
      field: 'inbox_ids',
    });
    const brand = await server.request('POST', '/api/brands', { key, body: { name: 'Other brand' } });
    const res = await post(key, { name: 'X', sequence_id: sequence.id, inbox_ids: [inbox.id], brand_id: brand.body.brand.id });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('sequence_id');
    expect(
      (
        await server.request(
          'GET',
          `/api/outreach/campaigns/${(await post(other.key, { name: 'Y', sequence_id: other.sequence.id, inbox_ids: [other.inbox.id] })).body.campaign.id}`,
          { key },
        )
      ).status,
    ).toBe(404);
  });
});

describe('PATCH /api/outreach/campaigns', () => {
  it('activates, pauses, resumes and archives, and refuses moves the status does not allow', async () => {
    const { key, inbox, sequence } = await parts();
    const { id } = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    expect((await updateCampaign(server, key, { id, status: 'active' })).status).toBe('active');
    expect((await updateCampaign(server, key, { id, status: 'paused' })).status).toBe('paused');
    expect((await updateCampaign(server, key, { id, status: 'active' })).status).toBe('active');
    const changed = await updateCampaign(server, key, {
      id,
      name: 'Renamed',
      reply_to: 'replies@acme.test',
      daily_limit: 25,
      priority: 7,
      schedule: { ...alwaysOpen, timezone: 'America/New_York' },
    });
    expect(changed).toMatchObject({
      name: 'Renamed',
      reply_to: 'replies@acme.test',
      daily_limit: 25,
      priority: 7,
      status: 'active',
      schedule: { timezone: 'America/New_York' },
    });
    expect((await updateCampaign(server, key, { id, status: 'archived' })).status).toBe('archived');
    const back = await patch(key, { id, status: 'active' });
    expect(back.status).toBe(409);
    expect(back.body).toMatchObject({ code: 'conflict', field: 'status', status: 'archived' });
    expect((await patch(key, { id, status: 'completed' })).body.field).toBe('status');
    expect((await patch(key, { id: inbox.id, name: 'x' })).status).toBe(404);
  });
});

describe('POST /api/outreach/campaigns/{id}/enroll', () => {
  it('enrolls each lead once and counts every other by why it was skipped', async () => {
    const { key, inbox, sequence } = await parts();
    const { id } = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const leads = await importLeads(server, key, [
      { email: 'ok@x.test' },
      { email: 'listed@x.test' },
      { email: 'someone@listed-domain.test' },
      { email: 'unsub@x.test' },
      { email: 'archived@x.test' },
      { email: 'disq@x.test', status: 'disqualified' },
      { full_name: 'No Address' },
      { email: 'broken@x.test' },
    ]);
    const [ok, listed, domain, unsub, archived, disqualified, noEmail, broken] = leads.map((lead) => lead.id);
    await server.request('POST', '/api/outreach/suppressions', { key, body: { entries: ['LISTED@x.test', '@listed-domain.test'] } });
    const stored = mongoose.connection.db!.collection<{ _id: string }>('leads');
    await stored.updateOne({ _id: unsub! }, { $set: { unsubscribedAt: new Date() } });
    await stored.updateOne({ _id: broken! }, { $set: { email: 'not an address' } }); // stored by a path that does not check
    await server.request('PATCH', `/api/leads/${archived}`, { key, body: { archived: true } });

    const other = await parts();
    const [foreign] = await importLeads(server, other.key, [{ email: 'foreign@x.test' }]);
    const result = await enroll(server, key, id, [
      ok!,
      listed!,
      domain!,
      unsub!,
      archived!,
      disqualified!,
      noEmail!,
      broken!,
      foreign!.id,
      ok!,
    ]);
    expect(result).toEqual({
      enrolled: 1,
      skipped: { suppressed: 2, unsubscribed: 1, archived: 2, already_enrolled: 0, no_email: 2, invalid_email: 1, in_other_campaign: 0 },
    });
    expect((await enroll(server, key, id, [ok!])).skipped.already_enrolled).toBe(1);
    expect((await server.request('GET', `/api/outreach/campaigns/${id}`, { key })).body.campaign.progress).toMatchObject({
      enrolled: 1,
      active: 1,
    });
  });

  it('needs a paid plan, takes at most 500 leads, and none into an archived campaign', async () => {
    const free = await parts('free');
    const { id } = await createCampaign(server, free.key, { sequence_id: free.sequence.id, inbox_ids: [free.inbox.id] });
    const locked = await server.request('POST', `/api/outreach/campaigns/${id}/enroll`, { key: free.key, body: { lead_ids: [id] } });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('outreach_locked');

    const { key, inbox, sequence } = await parts();
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
    const tooMany = await server.request('POST', `/api/outreach/campaigns/${campaign.id}/enroll`, {
      key,
      body: { lead_ids: Array.from({ length: 501 }, () => campaign.id) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('lead_ids');
    await updateCampaign(server, key, { id: campaign.id, status: 'archived' });
    const closed = await server.request('POST', `/api/outreach/campaigns/${campaign.id}/enroll`, {
      key,
      body: { lead_ids: [campaign.id] },
    });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ code: 'conflict', status: 'archived' });
  });

  it('keeps an inbox and a sequence from being deleted while an active campaign uses them', async () => {
    const { key, inbox, sequence } = await parts();
    const { id } = await createCampaign(server, key, { name: 'Busy', sequence_id: sequence.id, inbox_ids: [inbox.id] });
    await updateCampaign(server, key, { id, status: 'active' });
    const inboxDelete = await server.request('DELETE', `/api/outreach/inboxes/${inbox.id}`, { key });
    expect(inboxDelete.status).toBe(409);
    expect(inboxDelete.body.campaigns).toEqual(['Busy']);
    expect((await server.request('DELETE', `/api/outreach/sequences/${sequence.id}`, { key })).body.campaigns).toEqual(['Busy']);
    await updateCampaign(server, key, { id, status: 'paused' });
    expect((await server.request('DELETE', `/api/outreach/sequences/${sequence.id}`, { key })).status).toBe(200);
  });
});
