import { randomUUID } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runOutreachPass } from '../../src/outreach/delivery/engine.ts';
import { closeTransports } from '../../src/outreach/delivery/mailer.ts';
import { localDailyCounts, recordOutreachEvent } from '../../src/outreach/counters/outreach-stats.service.ts';
import { updateWorkspace } from '../../src/account/account.service.ts';
import { createOwnerKey, createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
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
import { useSmtpServer } from '../support/smtp-server.ts';

const server = useApiServer(outreachEnv);
const smtp = useSmtpServer({ sender: 'secret' });
const clock = useTestClock();

beforeEach(() => smtp.reset());
afterAll(closeTransports);

const oneStep = [{ subject: 'Hello', body_html: '<p>Hi there</p>' }];
const twoSteps = [...oneStep, { wait_days: 3, subject: 'Again', body_html: '<p>Hello again</p>' }];
const zero = { sent: 0, failed: 0, opened: 0, replied: 0, unsubscribed: 0, bounced: 0, complained: 0 };

async function stats(key: string, query = '') {
  const res = await server.request('GET', `/api/outreach/stats${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { days: Array<{ date: string; label: string } & typeof zero>; totals: Record<string, number> };
}

const site = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, init);

describe('GET /api/outreach/stats', () => {
  it("counts each send in the calendar day of the workspace's time zone, with labels, totals and rates", async () => {
    // Tuesday 16 June 2026, 23:30 in New York (03:30 UTC on the 17th).
    clock.set(Date.parse('2026-06-17T03:30:00Z'));
    const { apiKey: key, workspaceId } = await createTestWorkspace('starter');
    expect(await updateWorkspace(workspaceId, { timezone: 'America/New_York' })).toMatchObject({ timezone: 'America/New_York' });
    const inbox = await createInbox(server, key, smtp);
    const sequence = await createSequence(server, key, oneStep);
    const campaign = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [inbox.id], track_opens: true });
    smtp.script('gone@ny.test', 'reject');
    const first = await importLeads(server, key, [{ email: 'ann@ny.test' }, { email: 'bob@ny.test' }, { email: 'gone@ny.test' }]);
    await enroll(
      server,
      key,
      campaign.id,
      first.map((lead) => lead.id),
    );
    await updateCampaign(server, key, { id: campaign.id, status: 'active' });
    await runOutreachPass();
    expect(smtp.received).toHaveLength(2);
    // Ann opens hers the same evening.
    const pixel = new URL(/<img src="([^"]+)"/.exec(String(mailTo(smtp, 'ann@ny.test')[0]!.parsed.html))![1]!).pathname;
    expect((await site(pixel)).status).toBe(200);

    // Wednesday 17 June, 00:30 in New York: still the 17th in UTC, the next day locally.
    clock.set(Date.parse('2026-06-17T04:30:00Z'));
    const second = await importLeads(server, key, [{ email: 'cy@ny.test' }, { email: 'di@ny.test' }]);
    await enroll(
      server,
      key,
      campaign.id,
      second.map((lead) => lead.id),
    );
    await runOutreachPass();
    expect(smtp.received).toHaveLength(4);
    const unsubscribed = await site(unsubscribePath(mailTo(smtp, 'bob@ny.test')[0]!), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.status).toBe(200);

    const { days, totals } = await stats(key);
    expect(days).toHaveLength(14);
    expect(days[0]).toEqual({ date: '2026-06-04', label: 'Thu 4', ...zero });
    expect(days.slice(0, 12).every((day) => day.sent === 0)).toBe(true);
    // The hard bounce (refused at RCPT) counts as a send and a bounce.
    expect(days[12]).toEqual({ date: '2026-06-16', label: 'Tue 16', ...zero, sent: 3, opened: 1, bounced: 1 });
    expect(days[13]).toEqual({ date: '2026-06-17', label: 'Wed 17', ...zero, sent: 2, unsubscribed: 1 });
    expect(totals).toEqual({
      sent14d: 5,
      failed14d: 0,
      opened14d: 1,
      replies14d: 0,
      unsub14d: 1,
      bounced14d: 1,
      complaints14d: 0,
      unsubRate14d: 0.2,
      bounceRate14d: 0.2,
      complaintRate14d: 0,
      activeEnrollments: 0,
      sent24h: 5,
      capToday: 500,
    });

    // The same events in UTC days: all on the 17th.
    await updateWorkspace(workspaceId, { timezone: 'UTC' });
    const utc = await stats(key);
    expect(utc.days.slice(12)).toEqual([
      { date: '2026-06-16', label: 'Tue 16', ...zero },
      { date: '2026-06-17', label: 'Wed 17', ...zero, sent: 5, opened: 1, bounced: 1, unsubscribed: 1 },
    ]);
    expect(utc.totals).toEqual(totals);

    // Thirteen days later the first day has left the window.
    await updateWorkspace(workspaceId, { timezone: 'America/New_York' });
    clock.set(Date.parse('2026-06-30T12:00:00Z'));
    const later = await stats(key);
    expect(later.days.map((day) => day.date)).toEqual(Array.from({ length: 14 }, (_, n) => `2026-06-${String(17 + n).padStart(2, '0')}`));
    expect(later.days[0]).toMatchObject({ label: 'Wed 17', sent: 2 });
    expect(later.totals).toMatchObject({
      sent14d: 2,
      bounced14d: 0,
      opened14d: 0,
      unsub14d: 1,
      unsubRate14d: 0.5,
      bounceRate14d: 0,
      sent24h: 0,
    });
  });

  it("narrows to a brand's inboxes and campaigns, counts caps of unpaused inboxes and enrollments still going", async () => {
    clock.set(Date.parse('2026-06-20T12:00:00Z')); // a Saturday
    const { apiKey: key, workspaceId } = await createTestWorkspace('starter');
    const eu = (await server.request('POST', '/api/brands', { key, body: { name: 'Outbound EU' } })).body.brand.id as string;

    // The default brand: a sending inbox, and one that sends once directly and is then paused.
    const main = await createInbox(server, key, smtp);
    const spare = await createInbox(server, key, smtp, { name: 'Spare', dailyLimit: 300 });
    const direct = await server.request('POST', '/api/outreach/send', {
      key,
      body: { inbox_id: spare.id, to: 'direct@x.test', subject: 'Hi', body_html: '<p>Hi</p>' },
    });
    expect(direct.status, JSON.stringify(direct.body)).toBe(200);
    expect((await server.request('PATCH', `/api/outreach/inboxes/${spare.id}`, { key, body: { paused: true } })).status).toBe(200);
    const sequence = await createSequence(server, key, twoSteps);
    const leads = await importLeads(server, key, [
      { email: 'l1@x.test' },
      { email: 'l2@x.test' },
      { email: 'l3@x.test' },
      { email: 'l4@x.test' },
    ]);
    const running = await createCampaign(server, key, { sequence_id: sequence.id, inbox_ids: [main.id] });
    await enroll(server, key, running.id, [leads[0]!.id, leads[1]!.id]);
    await updateCampaign(server, key, { id: running.id, status: 'active' });
    // Archived with a lead enrolled: it sends nothing more, so its enrollment is not counted.
    const archived = await createCampaign(server, key, { name: 'Old', sequence_id: sequence.id, inbox_ids: [main.id] });
    await enroll(server, key, archived.id, [leads[2]!.id]);
    await updateCampaign(server, key, { id: archived.id, status: 'archived' });

    // The EU brand: a warming-up inbox (cap 10 today) and a draft campaign with one lead.
    const euInbox = await createInbox(server, key, smtp, { name: 'EU', dailyLimit: 40, warmupEnabled: true, brand_id: eu });
    const euSequence = await createSequence(server, key, twoSteps, { brand_id: eu });
    const euCampaign = await createCampaign(server, key, { sequence_id: euSequence.id, inbox_ids: [euInbox.id], brand_id: eu });
    await enroll(server, key, euCampaign.id, [leads[3]!.id]);

    await runOutreachPass();
    expect(smtp.received.map((mail) => mail.to[0]).sort()).toEqual(['direct@x.test', 'l1@x.test', 'l2@x.test']);

    const own = await stats(key);
    expect(own.totals).toMatchObject({ sent14d: 3, capToday: 500, sent24h: 3, activeEnrollments: 2 });
    expect(own.days[13]).toEqual({ date: '2026-06-20', label: 'Sat 20', ...zero, sent: 3 });
    expect(await stats(key, '?brand=all')).toMatchObject({ totals: { sent14d: 3, capToday: 510, sent24h: 3, activeEnrollments: 3 } });
    const euStats = await stats(key, `?brand=${eu}`);
    expect(euStats.totals).toMatchObject({ sent14d: 0, capToday: 10, sent24h: 0, activeEnrollments: 1, bounceRate14d: 0, unsubRate14d: 0 });
    expect(euStats.days.every((day) => day.sent === 0)).toBe(true);
    // A key bound to the EU brand reads it by default.
    const euKey = (await createOwnerKey(workspaceId, 'EU team', ['read'], eu)).apiKey;
    expect((await stats(euKey)).totals).toEqual(euStats.totals);

    const bad = await server.request('GET', '/api/outreach/stats?brand=nope', { key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'brand' });
    expect(bad.body.error).toContain('brand');
    const foreign = await server.request('GET', `/api/outreach/stats?brand=${randomUUID()}`, { key });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'not_found', field: 'brand' });

    // The same on GraphQL and tRPC.
    const graphql = await server.request('POST', '/graphql', {
      key,
      body: { query: `{ outreachStatsGet(brand: "all") { totals { capToday activeEnrollments } days { date label sent } } }` },
    });
    expect(graphql.body.data?.outreachStatsGet, JSON.stringify(graphql.body)).toMatchObject({
      totals: { capToday: 510, activeEnrollments: 3 },
      days: expect.arrayContaining([{ date: '2026-06-20', label: 'Sat 20', sent: 3 }]),
    });
    const trpc = await server.request('GET', `/trpc/outreach.stats.get?input=${encodeURIComponent(JSON.stringify({ brand: eu }))}`, {
      key,
    });
    expect(trpc.body.result.data.totals).toEqual(euStats.totals);
    await updateCampaign(server, key, { id: running.id, status: 'archived' });
  });
});

describe('local days from hourly buckets', () => {
  const count = async (scope: string, ...times: string[]) => {
    for (const at of times) await recordOutreachEvent([scope], 'sent', Date.parse(at));
  };
  const sentByDay = async (scope: string, timezone: string, at: string, days: number) =>
    Object.fromEntries((await localDailyCounts(scope, timezone, days, Date.parse(at))).map((day) => [day.date, day.sent]));

  it('makes days of 25 and 23 hours across daylight saving changes', async () => {
    const scope = `test:${randomUUID()}`;
    // New York, 1 November 2026: clocks go back at 02:00, the day has 25 hours (04:00 UTC to 05:00 UTC the next day).
    await count(scope, '2026-11-01T03:50:00Z', '2026-11-01T04:10:00Z', '2026-11-02T04:50:00Z', '2026-11-02T05:10:00Z');
    expect(await sentByDay(scope, 'America/New_York', '2026-11-02T12:00:00Z', 3)).toEqual({
      '2026-10-31': 1,
      '2026-11-01': 2,
      '2026-11-02': 1,
    });
    // 8 March 2026: clocks go forward, the day has 23 hours (05:00 UTC to 04:00 UTC the next day).
    await count(scope, '2026-03-08T04:50:00Z', '2026-03-08T05:10:00Z', '2026-03-09T03:50:00Z', '2026-03-09T04:10:00Z');
    expect(await sentByDay(scope, 'America/New_York', '2026-03-09T12:00:00Z', 3)).toEqual({
      '2026-03-07': 1,
      '2026-03-08': 2,
      '2026-03-09': 1,
    });
  });

  it('counts an hour of a half-hour zone in the local day it starts in', async () => {
    const scope = `test:${randomUUID()}`;
    // Kolkata is UTC+5:30: the 18:00 UTC hour starts at 23:30 on the 16th, the 19:00 one at 00:30 on the 17th.
    await count(scope, '2026-06-16T18:45:00Z', '2026-06-16T19:05:00Z');
    // 00:15 and 00:35 on the 17th: the first falls in the hour that started on the 16th.
    expect(await sentByDay(scope, 'Asia/Kolkata', '2026-06-16T18:50:00Z', 2)).toEqual({ '2026-06-16': 1, '2026-06-17': 0 });
    expect(await sentByDay(scope, 'Asia/Kolkata', '2026-06-16T19:10:00Z', 2)).toEqual({ '2026-06-16': 1, '2026-06-17': 1 });
    expect(await sentByDay(scope, 'Asia/Kolkata', '2026-06-17T06:00:00Z', 2)).toEqual({ '2026-06-16': 1, '2026-06-17': 1 });
  });
});
