import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { setBalances } from '../../src/credits/credits.service.ts';
import { fireDueSchedules } from '../../src/schedules/index.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const clock = useTestClock();
const server = useApiServer({ ...scrapeEnv, SCHEDULES_TICK_MS: '1000' }, { worker: true });
const sites = useCatalogueAndForbiddenSites();

const runsOf = async (key: string, scraperId: string) =>
  (await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key })).body.runs as Array<Record<string, any>>;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function scheduled(cron = '0 10 * * *', timezone = 'Europe/Berlin') {
  const { apiKey, workspaceId } = await createTestWorkspace();
  const scraperId = await createScraper(server, apiKey);
  const res = await server.request('POST', '/api/schedules', {
    key: apiKey,
    body: { scraper_id: scraperId, url: `${sites.site.origin}/catalogue?page=1`, cron, timezone, options: { max_pages: 1 } },
  });
  expect(res.status).toBe(201);
  return { apiKey, workspaceId, scraperId, schedule: res.body.schedule };
}

describe('schedules', () => {
  it('starts one run at its due time in its time zone, carrying schedule_id, and one catch-up run for missed times', async () => {
    clock.set(new Date('2026-06-01T07:59:40Z')); // 09:59:40 in Berlin (summer time)
    const { apiKey, scraperId, schedule } = await scheduled();
    expect(schedule).toMatchObject({
      cron: '0 10 * * *',
      timezone: 'Europe/Berlin',
      enabled: true,
      next_run_at: '2026-06-01T08:00:00.000Z',
      last_run_at: null,
      last_run_id: null,
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await runsOf(apiKey, scraperId)).toEqual([]); // not due yet

    clock.advance(25_000); // 10:00:05
    const fired = await until(
      () => runsOf(apiKey, scraperId),
      (runs) => runs.length > 0,
    );
    expect(fired).toEqual([expect.objectContaining({ schedule_id: schedule.id })]);
    const run = await waitForRun(server, apiKey, fired[0]!.id);
    expect(run).toMatchObject({ status: 'completed', schedule_id: schedule.id, pages: 1 });
    const after = (await server.request('GET', `/api/schedules/${schedule.id}`, { key: apiKey })).body.schedule;
    expect(after).toMatchObject({ last_run_at: '2026-06-01T08:00:00.000Z', last_run_id: run.id, next_run_at: '2026-06-02T08:00:00.000Z' });

    // Three days pass with no worker looking: one catch-up run, then the next due time after now.
    clock.advance(3 * 24 * 3600_000);
    const caughtUp = await until(
      () => runsOf(apiKey, scraperId),
      (runs) => runs.length > 1,
    );
    await new Promise((r) => setTimeout(r, 2_500)); // a few more looks
    expect(await runsOf(apiKey, scraperId)).toHaveLength(2);
    expect(caughtUp[0]).toMatchObject({ schedule_id: schedule.id });
    expect((await server.request('GET', `/api/schedules/${schedule.id}`, { key: apiKey })).body.schedule).toMatchObject({
      last_run_at: '2026-06-02T08:00:00.000Z',
      next_run_at: '2026-06-05T08:00:00.000Z',
    });
  });

  it('starts exactly one run for a due time however many workers look at once', async () => {
    clock.set(new Date('2026-06-01T11:59:58Z'));
    clock.freeze();
    const { apiKey, scraperId } = await scheduled('0 12 * * *', 'UTC');
    clock.advance(5_000);
    await Promise.all(Array.from({ length: 6 }, () => fireDueSchedules()));
    await new Promise((r) => setTimeout(r, 1_500)); // the worker's own look too
    expect(await runsOf(apiKey, scraperId)).toHaveLength(1);
  });

  it('fails a due run without credits with insufficient_credits and its event', async () => {
    clock.set(new Date('2026-06-01T11:59:58Z'));
    const { apiKey, workspaceId, scraperId, schedule } = await scheduled('0 12 * * *', 'UTC');
    await setBalances(workspaceId, { crawl: 0 });
    clock.advance(5_000);
    // Until the run the schedule started has ended (it appears queued first).
    const runs = await until(
      () => runsOf(apiKey, scraperId),
      (found) => found.length > 0 && found.every((run) => !['queued', 'running'].includes(run.status)),
    );
    expect(runs).toEqual([expect.objectContaining({ status: 'failed', schedule_id: schedule.id })]);
    expect((await server.request('GET', `/api/scrape/runs/${runs[0]!.id}`, { key: apiKey })).body).toMatchObject({
      status: 'failed',
      errorCode: 'insufficient_credits',
      pages: 0,
    });
    const event = await mongoose.connection.db!.collection('events').findOne({ type: 'scrape.run.failed', 'data.runId': runs[0]!.id });
    expect(event?.data).toMatchObject({ errorCode: 'insufficient_credits' });
  });

  it('lists, pauses, resumes and deletes schedules; refuses a bad cron or time zone naming the field', async () => {
    clock.set(new Date('2026-03-28T12:00:00Z'));
    const { apiKey, scraperId, schedule } = await scheduled('30 2 * * *', 'Europe/Berlin');
    // 02:30 does not exist in Berlin on 29 March 2026 (clocks go 02:00 → 03:00): it runs an hour on, at 03:30 CEST.
    expect(schedule.next_run_at).toBe('2026-03-29T01:30:00.000Z');
    expect((await server.request('GET', '/api/schedules', { key: apiKey })).body.schedules).toEqual([schedule]);

    const paused = await server.request('PATCH', `/api/schedules/${schedule.id}`, { key: apiKey, body: { enabled: false } });
    expect(paused.body.schedule).toMatchObject({ enabled: false, next_run_at: null });
    const moved = await server.request('PATCH', `/api/schedules/${schedule.id}`, {
      key: apiKey,
      body: { enabled: true, cron: '0 9 * * 1-5', timezone: 'America/New_York' },
    });
    expect(moved.body.schedule).toMatchObject({ enabled: true, next_run_at: '2026-03-30T13:00:00.000Z' });

    for (const [body, field] of [
      [{ cron: '0 9 * *' }, 'cron'],
      [{ cron: '0 9 * * * *' }, 'cron'],
      [{ cron: '61 9 * * *' }, 'cron'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
    ] as const) {
      const res = await server.request('POST', '/api/schedules', {
        key: apiKey,
        body: { scraper_id: scraperId, url: `${sites.site.origin}/`, ...{ cron: '0 9 * * *', timezone: 'UTC' }, ...body },
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toMatchObject({ code: 'validation_failed', field });
      const patch = await server.request('PATCH', `/api/schedules/${schedule.id}`, { key: apiKey, body });
      expect(patch.body, JSON.stringify(body)).toMatchObject({ field });
    }
    const other = await createTestWorkspace();
    expect((await server.request('GET', `/api/schedules/${schedule.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await server.request('DELETE', `/api/schedules/${schedule.id}`, { key: apiKey })).body).toEqual({ ok: true, id: schedule.id });
    expect((await server.request('GET', `/api/schedules/${schedule.id}`, { key: apiKey })).status).toBe(404);
  });
});
