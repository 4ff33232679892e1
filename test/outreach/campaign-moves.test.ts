import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { enrollLeads } from '../../src/outreach/campaigns/enrollments.service.ts';
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

/** Removing leads from a campaign, moving them to another, and enrolling only leads not active elsewhere, over a real SMTP server. */
const server = useApiServer(outreachEnv);
const smtp = useSmtpServer();
const clock = useTestClock();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const dayMs = 24 * 3_600_000;
const twoSteps = [
  { subject: 'Hello', body_html: '<p>Hi</p>' },
  { wait_days: 1, subject: 'Still there?', body_html: '<p>Following up</p>' },
];

async function world(leadCount: number) {
  const { apiKey: key, brandId, workspaceId } = await createTestWorkspace('starter');
  const inbox = await createInbox(server, key, smtp);
  const sequence = await createSequence(server, key, twoSteps);
  const campaign = async () => createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id] });
  const [first, second] = [await campaign(), await campaign()];
  const leads = await importLeads(
    server,
    key,
    Array.from({ length: leadCount }, (_, i) => ({ email: `lead${i}@${brandId.slice(0, 8)}.test`, full_name: `Lead ${i}` })),
  );
  return { key, workspaceId, inbox, sequence, first, second, leads, ids: leads.map((lead) => lead.id) };
}

const post = (key: string, path: string, body: Record<string, unknown>) => server.request('POST', path, { key, body });

describe('POST /api/outreach/campaigns/{id}/remove', () => {
  it('stops the next steps of the leads removed, counts them in progress.removed, and answers the rest as not enrolled', async () => {
    const { key, first, leads, ids } = await world(3);
    await enroll(server, key, first.id, ids.slice(0, 2));
    await updateCampaign(server, key, { id: first.id, status: 'active' });
    await runOutreachPass();
    expect(smtp.received).toHaveLength(2);

    const res = await post(key, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: [ids[0], ids[2]] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ removed: 1, not_enrolled: 1 });
    const [removal] = (await server.request('GET', `/api/leads/${ids[0]}/activity`, { key })).body.activity;
    expect(removal).toMatchObject({ type: 'outreach.removed', campaign_id: first.id, data: { reason: 'removed' } });
    expect((await post(key, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: [ids[0]] })).body).toEqual({
      removed: 0,
      not_enrolled: 1,
    });

    clock.advance(dayMs + 60_000);
    await runOutreachPass();
    expect(mailTo(smtp, leads[0]!.email)).toHaveLength(1); // step 0 only
    expect(mailTo(smtp, leads[1]!.email)).toHaveLength(2);
    const progress = (await getCampaign(server, key, first.id)).progress;
    expect(progress).toMatchObject({ enrolled: 2, removed: 1, finished: 1, active: 0 });
  });

  it('lets a send already claimed finish, then sends the lead nothing more', async () => {
    const { key, first, leads, ids } = await world(1);
    await enroll(server, key, first.id, ids);
    await updateCampaign(server, key, { id: first.id, status: 'active' });
    smtp.script(leads[0]!.email, { delayMs: 800 });
    let removal: Promise<{ status: number; body: unknown }> | undefined;
    smtp.onRecipient = () => {
      removal ??= post(key, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: ids });
    };
    await runOutreachPass();
    smtp.onRecipient = undefined;
    expect((await removal!).body).toEqual({ removed: 1, not_enrolled: 0 });
    expect(mailTo(smtp, leads[0]!.email)).toHaveLength(1);
    clock.advance(dayMs + 60_000);
    await runOutreachPass();
    expect(mailTo(smtp, leads[0]!.email)).toHaveLength(1);
    const progress = (await getCampaign(server, key, first.id)).progress;
    expect(progress).toMatchObject({ removed: 1, active: 0, finished: 0, steps: [{ step: 0, sent: 1 }] });
  });

  it('names lead_ids past 500, 404s unknown and foreign campaigns, and needs a paid plan', async () => {
    const { key, first, ids } = await world(1);
    const many = Array.from({ length: 501 }, () => ids[0]);
    const tooMany = await post(key, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('lead_ids');
    const unknown = await post(key, `/api/outreach/campaigns/${crypto.randomUUID()}/remove`, { lead_ids: ids });
    expect(unknown.status).toBe(404);
    const other = await createTestWorkspace('starter');
    expect((await post(other.apiKey, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: ids })).status).toBe(404);
    const free = await createTestWorkspace('free');
    const locked = await post(free.apiKey, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: ids });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('outreach_locked');
  });
});

describe('POST /api/outreach/campaigns/{id}/move', () => {
  it('enrolls the leads in the target from its first step and removes them here; refused leads stay', async () => {
    const { key, first, second, leads, ids } = await world(4);
    await enroll(server, key, first.id, ids.slice(0, 3));
    await enroll(server, key, second.id, [ids[2]!]); // already in the target
    await updateCampaign(server, key, { id: first.id, status: 'active' });
    await runOutreachPass();
    expect(smtp.received).toHaveLength(3);

    const res = await post(key, `/api/outreach/campaigns/${first.id}/move`, { lead_ids: ids, to_campaign_id: second.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      moved: 2,
      skipped: {
        suppressed: 0,
        unsubscribed: 0,
        archived: 0,
        already_enrolled: 1,
        no_email: 0,
        invalid_email: 0,
        not_enrolled: 1,
      },
    });
    expect((await getCampaign(server, key, first.id)).progress).toMatchObject({ removed: 2, active: 1 });
    const story = (await server.request('GET', `/api/leads/${ids[0]}/activity`, { key })).body.activity;
    expect(
      story.slice(0, 2).map((entry: { type: string; campaign_id: string; data: unknown }) => [entry.type, entry.campaign_id, entry.data]),
    ).toEqual([
      ['outreach.removed', first.id, { reason: 'moved', to_campaign_id: second.id }],
      ['outreach.enrolled', second.id, {}],
    ]);
    expect((await getCampaign(server, key, second.id)).progress).toMatchObject({ enrolled: 3, active: 3 });

    // The target sends its first step to the moved leads; the source sends them nothing more.
    smtp.reset();
    await updateCampaign(server, key, { id: second.id, status: 'active' });
    clock.advance(dayMs + 60_000);
    await runOutreachPass();
    expect(mailTo(smtp, leads[0]!.email).map((mail) => mail.parsed.subject)).toEqual(['Hello']);
    expect(mailTo(smtp, leads[1]!.email).map((mail) => mail.parsed.subject)).toEqual(['Hello']);
    // The lead the target refused (enrolled there before) stayed in the source, which sent it its second step.
    expect(
      mailTo(smtp, leads[2]!.email)
        .map((mail) => mail.parsed.subject)
        .sort(),
    ).toEqual(['Hello', 'Still there?']);
  });

  it('finishes a move cut short after enrolling the leads in the target: asked again, it removes them here', async () => {
    const { key, workspaceId, first, second, ids } = await world(2);
    await enroll(server, key, first.id, ids);
    // What a move that failed before its removal here leaves: the first lead enrolled in the target, from the source.
    await enrollLeads(workspaceId, second.id, [ids[0]!], { movedFrom: first.id });

    const res = await post(key, `/api/outreach/campaigns/${first.id}/move`, { lead_ids: ids, to_campaign_id: second.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ moved: 2, skipped: { already_enrolled: 0, not_enrolled: 0 } });
    expect((await getCampaign(server, key, first.id)).progress).toMatchObject({ removed: 2, active: 0 });
    expect((await getCampaign(server, key, second.id)).progress).toMatchObject({ enrolled: 2, active: 2 });
  });

  it('refuses the same campaign, another brand, an unknown target and a foreign campaign', async () => {
    const { key, first, second, ids } = await world(1);
    const same = await post(key, `/api/outreach/campaigns/${first.id}/move`, { lead_ids: ids, to_campaign_id: first.id });
    expect(same.status).toBe(400);
    expect(same.body.field).toBe('to_campaign_id');
    const brand = (await post(key, '/api/brands', { name: 'Other' })).body.brand;
    const inbox = await createInbox(server, key, smtp, { brand_id: brand.id, from: 'bo@other.test' });
    const sequence = await createSequence(server, key, twoSteps, { brand_id: brand.id });
    const elsewhere = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id], brand_id: brand.id });
    const crossBrand = await post(key, `/api/outreach/campaigns/${first.id}/move`, { lead_ids: ids, to_campaign_id: elsewhere.id });
    expect(crossBrand.status).toBe(400);
    expect(crossBrand.body.field).toBe('to_campaign_id');
    const unknown = await post(key, `/api/outreach/campaigns/${first.id}/move`, { lead_ids: ids, to_campaign_id: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.field).toBe('to_campaign_id');
    const other = await createTestWorkspace('starter');
    const foreign = await post(other.apiKey, `/api/outreach/campaigns/${first.id}/move`, { lead_ids: ids, to_campaign_id: second.id });
    expect(foreign.status).toBe(404);
  });
});

describe('enroll with skip_if_in_other_campaign', () => {
  it('skips leads active in another campaign of the workspace, counted as in_other_campaign', async () => {
    const { key, first, second, ids } = await world(3);
    await enroll(server, key, first.id, [ids[0]!, ids[1]!]);
    await post(key, `/api/outreach/campaigns/${first.id}/remove`, { lead_ids: [ids[1]] }); // no longer active there
    const res = await post(key, `/api/outreach/campaigns/${second.id}/enroll`, { lead_ids: ids, skip_if_in_other_campaign: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      enrolled: 2,
      skipped: { suppressed: 0, unsubscribed: 0, archived: 0, already_enrolled: 0, no_email: 0, invalid_email: 0, in_other_campaign: 1 },
    });
    // Without it (the default) a lead may be in several campaigns.
    const third = await createCampaign(server, key, { sequence_id: first.sequence_id, inbox_ids: first.inbox_ids });
    expect((await enroll(server, key, third.id, ids)).enrolled).toBe(3);
  });
});
