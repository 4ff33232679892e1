import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { getBalances, setBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { catalogueSite, serveFixture, useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });
const sites = useCatalogueAndForbiddenSites();

const start = (key: string, scraperId: string, body: Record<string, unknown>) =>
  server.request('POST', `/api/scrape/${scraperId}`, { key, body });

describe('scrape runs', () => {
  it('answers 202 at once, then the run completes with the data, charging one credit a page', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const res = await start(apiKey, scraperId, { url: `${sites.site.origin}/catalogue?page=1` });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      data: { runId: expect.any(String), status: 'queued', message: expect.any(String) },
      metadata: { scraperId, timestamp: expect.any(String), creditsRemaining: 100 },
    });
    const run = await waitForRun(server, apiKey, res.body.data.runId);
    expect(run).toMatchObject({ status: 'completed', scraperId, pages: 4, pagesCharged: 4, creditsCharged: 4, error: null, failures: [] });
    expect(run.finished_at).toEqual(expect.any(String));

    const data = await server.request('GET', `/api/${scraperId}/data/${run.id}`, { key: apiKey });
    expect(data.status).toBe(200);
    expect(Object.keys(data.body)).toEqual(['items']);
    expect(data.body.items).toHaveLength(12);
    expect(data.body.items[11]).toEqual({ title: 'Product 12', price: 1012.5, link: `${sites.site.origin}/p/12` });
    expect((await getBalances(workspaceId)).crawl).toBe(96);

    // The finished one-off job is removed from the queue.
    const jobs = mongoose.connection.db!.collection('agenda_jobs');
    const deadline = Date.now() + 5000;
    while ((await jobs.countDocuments({ name: 'scrape.run', 'data.runId': run.id })) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await jobs.countDocuments({ name: 'scrape.run', 'data.runId': run.id })).toBe(0);
  });

  it('shows pages and credits moving while the run works, and writes the run document only when it starts and ends', async () => {
    const slowSite = await serveFixture(catalogueSite({ pages: 5, pageDelayMs: 300 }));
    const runWrites: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => {
      if (collection === 'scrape_runs' && /update|insert|replace|delete/i.test(method)) runWrites.push(method);
    });
    try {
      const { apiKey } = await createTestWorkspace();
      const scraperId = await createScraper(server, apiKey);
      const res = await start(apiKey, scraperId, { url: `${slowSite.origin}/catalogue?page=1` });
      const seen = new Set<number>();
      for (
        let run = (await server.request('GET', `/api/scrape/runs/${res.body.data.runId}`, { key: apiKey })).body;
        run.status !== 'completed';
      ) {
        if (run.status === 'running') seen.add(run.pages);
        expect(run.creditsCharged).toBe(run.pages);
        await new Promise((r) => setTimeout(r, 100));
        run = (await server.request('GET', `/api/scrape/runs/${res.body.data.runId}`, { key: apiKey })).body;
      }
      expect([...seen].filter((pages) => pages > 0 && pages < 5).length).toBeGreaterThanOrEqual(2);
      expect(await waitForRun(server, apiKey, res.body.data.runId)).toMatchObject({ pages: 5, pagesCharged: 5, creditsCharged: 5 });
      // Created, marked running, ended: however many pages.
      expect(runWrites).toHaveLength(3);
    } finally {
      mongoose.set('debug', false);
      await slowSite.close();
    }
  });

  it('stops charging a run whose scraper is deleted while it works', async () => {
    const slowSite = await serveFixture(catalogueSite({ pages: 20, pageDelayMs: 150 }));
    try {
      const { apiKey, workspaceId } = await createTestWorkspace();
      const scraperId = await createScraper(server, apiKey);
      const runId = (await start(apiKey, scraperId, { url: `${slowSite.origin}/catalogue?page=1` })).body.data.runId;
      while ((await server.request('GET', `/api/scrape/runs/${runId}`, { key: apiKey })).body.pages < 2)
        await new Promise((r) => setTimeout(r, 50));
      expect((await server.request('DELETE', `/api/scrapers/${scraperId}`, { key: apiKey })).body).toMatchObject({
        ok: true,
        runs_deleted: 1,
      });
      const afterDelete = (await getBalances(workspaceId)).crawl;
      await new Promise((r) => setTimeout(r, 1_500)); // ten more pages' time
      // At most the page being paid for when its account closed.
      expect((await getBalances(workspaceId)).crawl).toBeGreaterThanOrEqual(afterDelete - 1);
      expect((await server.request('GET', `/api/scrape/runs/${runId}`, { key: apiKey })).status).toBe(404);
    } finally {
      await slowSite.close();
    }
  });

  it('answers 200 with the completed-result form when asked to wait and the run finishes in time', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const res = await start(apiKey, scraperId, { url: `${sites.site.origin}/catalogue?page=1`, options: { wait: true, max_pages: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { items: expect.arrayContaining([{ title: 'Product 1', price: 1001.5, link: `${sites.site.origin}/p/1` }]) },
      metadata: {
        scraperId,
        runId: expect.any(String),
        timestamp: expect.any(String),
        tokensUsed: 0,
        creditsCost: 2,
        creditsRemaining: 98,
      },
    });
    expect(res.body.data.items).toHaveLength(6);
  });

  it('answers 202 with the status until the data is there, and honours max_pages', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, { name: 'Slow', extract: { fields: { h: { selector: 'h1' } } } });
    const res = await start(apiKey, scraperId, { url: `${sites.site.origin}/slow?ms=1500` });
    const pending = await server.request('GET', `/api/${scraperId}/data/${res.body.data.runId}`, { key: apiKey });
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({ runId: res.body.data.runId, status: expect.stringMatching(/queued|running/) });
    await waitForRun(server, apiKey, res.body.data.runId);
    expect((await server.request('GET', `/api/${scraperId}/data/${res.body.data.runId}`, { key: apiKey })).body).toEqual({
      h: 'Slow page',
    });

    const catalogue = await createScraper(server, apiKey);
    const limited = await start(apiKey, catalogue, { url: `${sites.site.origin}/catalogue?page=1`, options: { max_pages: 2 } });
    expect((await waitForRun(server, apiKey, limited.body.data.runId)).pages).toBe(2);
  });

  it('fails a run whose page cannot be fetched, without charging, and answers 422 for its data', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const res = await start(apiKey, scraperId, { url: `${sites.site.origin}/missing` });
    const run = await waitForRun(server, apiKey, res.body.data.runId);
    expect(run).toMatchObject({ status: 'failed', pages: 0, creditsCharged: 0, error: 'HTTP 404' });
    const data = await server.request('GET', `/api/${scraperId}/data/${run.id}`, { key: apiKey });
    expect(data.status).toBe(422);
    expect(data.body).toMatchObject({ code: 'run_failed', error: expect.stringContaining('HTTP 404') });
    expect((await getBalances(workspaceId)).crawl).toBe(100);
  });

  it('refuses forbidden addresses at start, and fails a run redirected to one without connecting', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    for (const url of [`${sites.forbidden.origin}/`, `http://fixture.test:${sites.forbidden.port}/`, 'http://[::1]/', 'ftp://127.0.0.1/']) {
      const res = await start(apiKey, scraperId, { url });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({ success: false, errorType: expect.stringMatching(/url_not_allowed|validation_error/) });
    }
    // The refusal says how to allow an address on purpose.
    const refused = await start(apiKey, scraperId, { url: `${sites.forbidden.origin}/` });
    expect(refused.body.error).toContain('OUTBOUND_ALLOWED_ADDRESSES');
    const redirected = await start(apiKey, scraperId, {
      url: `${sites.site.origin}/redirect?to=${encodeURIComponent(`${sites.forbidden.origin}/secret`)}`,
    });
    expect(redirected.status).toBe(202);
    const run = await waitForRun(server, apiKey, redirected.body.data.runId);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'url_not_allowed', creditsCharged: 0 });
    expect(sites.forbidden.hits).toEqual([]);
  });

  it('refuses to start without credits for one page (403 insufficient_credits), unless overage is on', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    await setBalances(workspaceId, { crawl: 0 });
    const refused = await start(apiKey, scraperId, { url: `${sites.site.origin}/catalogue?page=1` });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, errorType: 'insufficient_credits', error: expect.any(String) });

    await setBalances(workspaceId, { overage: true });
    const res = await start(apiKey, scraperId, { url: `${sites.site.origin}/catalogue?page=1` });
    expect(res.status).toBe(202);
    const run = await waitForRun(server, apiKey, res.body.data.runId);
    expect(run).toMatchObject({ status: 'completed', pages: 4, creditsCharged: 0, overageCredits: 4 });
  });

  it('stops a run when credits run out mid-way, keeping what was paid for', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    await setBalances(workspaceId, { crawl: 2 });
    const res = await start(apiKey, scraperId, { url: `${sites.site.origin}/catalogue?page=1` });
    const run = await waitForRun(server, apiKey, res.body.data.runId);
    expect(run).toMatchObject({ status: 'completed', pages: 2, pagesCharged: 2, creditsCharged: 2, errorCode: 'credits' });
    expect((await server.request('GET', `/api/${scraperId}/data/${run.id}`, { key: apiKey })).body.items).toHaveLength(6);
    expect((await getBalances(workspaceId)).crawl).toBe(0);
  });

  it('never takes the balance below zero when runs start together against a small balance', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    await setBalances(workspaceId, { crawl: 3 });
    const started = await Promise.all(
      Array.from({ length: 4 }, () => start(apiKey, scraperId, { url: `${sites.site.origin}/catalogue?page=1` })),
    );
    const runs = await Promise.all(started.filter((r) => r.status === 202).map((r) => waitForRun(server, apiKey, r.body.data.runId)));
    const charged = runs.reduce((sum, run) => sum + run.creditsCharged, 0);
    expect(charged).toBe(3);
    // Each run was executed once: every credit it spent is a page it recorded.
    for (const run of runs) expect(run.pagesCharged).toBe(run.creditsCharged);
    expect((await getBalances(workspaceId)).crawl).toBe(0);
  });

  it('answers scraping-style auth errors and keeps runs to their workspace', async () => {
    const owner = await createTestWorkspace();
    const other = await createTestWorkspace();
    const scraperId = await createScraper(server, owner.apiKey);
    const anonymous = await server.request('POST', `/api/scrape/${scraperId}`, { body: { url: `${sites.site.origin}/catalogue` } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ success: false, errorType: 'authentication_error', error: expect.any(String) });
    const readOnly = await start(await owner.keyWith('read'), scraperId, { url: `${sites.site.origin}/catalogue` });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toMatchObject({ success: false, code: 'missing_permission', permission: 'scraper' });

    expect((await start(other.apiKey, scraperId, { url: `${sites.site.origin}/catalogue` })).status).toBe(404);
    const res = await start(await owner.keyWith('scraper'), scraperId, { url: `${sites.site.origin}/catalogue?page=1` });
    const runId = res.body.data.runId;
    expect((await server.request('GET', `/api/scrape/runs/${runId}`, { key: other.apiKey })).status).toBe(404);
    expect((await server.request('GET', `/api/${scraperId}/data/${runId}`, { key: other.apiKey })).status).toBe(404);
    await waitForRun(server, owner.apiKey, runId);
  });
});

describe('per-host concurrency', () => {
  it('crawls one host with at most SCRAPE_HOST_CONCURRENCY requests at once', async () => {
    const slow = await serveFixture(catalogueSite({ pages: 2, pageDelayMs: 150 }));
    try {
      // Four workspaces: the limit is the host's, whoever crawls it.
      const crawls = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const { apiKey } = await createTestWorkspace();
          const started = await start(apiKey, await createScraper(server, apiKey), { url: `${slow.origin}/catalogue?page=1` });
          return { apiKey, runId: started.body.data.runId as string };
        }),
      );
      const runs = await Promise.all(crawls.map(({ apiKey, runId }) => waitForRun(server, apiKey, runId)));
      expect(runs.every((run) => run.status === 'completed')).toBe(true);
      expect(slow.maxInFlight()).toBe(2);
    } finally {
      await slow.close();
    }
  });
});
