import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { catalogueSite, serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { startService } from '../support/processes.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

// The API runs here without a worker: the run is crawled by a worker process, which the cancel reaches through the store.
const server = useApiServer(scrapeEnv);
let slowSite: FixtureSite;

beforeAll(async () => {
  slowSite = await serveFixture(catalogueSite({ pages: 60, pageDelayMs: 300 }));
});
afterAll(() => slowSite.close());

const startWorkerProcess = () =>
  startService(
    process.execPath,
    ['src/main.ts', 'worker'],
    { ...scrapeEnv, MONGODB_URI: server.databaseUri, SECRETS_KEY: testSecretsKey, LOG_LEVEL: 'error', PORT: '0' },
    null,
  );

const events = (runId: string) =>
  mongoose.connection.db!.collection('events').find({ 'data.runId': runId }).project({ type: 1, data: 1 }).toArray();

describe('cancelling a scrape run', () => {
  it('stops a run another process crawls within seconds, keeping the items read and charging only the pages fetched', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const worker = await startWorkerProcess();
    try {
      const res = await server.request('POST', `/api/scrape/${scraperId}`, {
        key: apiKey,
        body: { url: `${slowSite.origin}/catalogue?page=1` },
      });
      const runId = res.body.data.runId;
      const deadline = Date.now() + 20_000;
      while ((await server.request('GET', `/api/scrape/runs/${runId}`, { key: apiKey })).body.pagesCharged < 3) {
        if (Date.now() > deadline) throw new Error(`the worker never got going:\n${worker.output()}`);
        await new Promise((r) => setTimeout(r, 50));
      }

      const asked = Date.now();
      const cancel = await server.request('POST', `/api/scrape/runs/${runId}/cancel`, { key: apiKey });
      expect(cancel.status).toBe(200);
      expect(Date.now() - asked).toBeLessThan(10_000);
      const run = cancel.body.run;
      expect(run).toMatchObject({ id: runId, status: 'cancelled', errorCode: 'cancelled', finished_at: expect.any(String) });
      expect(run.pages).toBeGreaterThanOrEqual(3);
      expect(run.pages).toBeLessThan(60);
      expect(run.pagesCharged).toBe(run.pages);
      expect(run.creditsCharged).toBe(run.pages);

      // What it read stays readable: three products a page.
      const data = await server.request('GET', `/api/${scraperId}/data/${runId}`, { key: apiKey });
      expect(data.status).toBe(200);
      expect(data.body.items).toHaveLength(run.pages * 3);
      expect(data.body.items[0]).toEqual({ title: 'Product 1', price: 1001.5, link: `${slowSite.origin}/p/1` });

      // Nothing more is fetched or charged afterwards.
      const hits = slowSite.hits.length;
      await new Promise((r) => setTimeout(r, 1_500));
      expect(slowSite.hits.length).toBeLessThanOrEqual(hits + 1);
      expect((await getBalances(workspaceId)).crawl).toBe(100 - run.pages);
      expect(await waitForRun(server, apiKey, runId)).toMatchObject({ status: 'cancelled', pages: run.pages });

      expect(await events(runId)).toEqual([
        expect.objectContaining({ type: 'scrape.run.cancelled', data: expect.objectContaining({ runId, pages: run.pages }) }),
      ]);

      const again = await server.request('POST', `/api/scrape/runs/${runId}/cancel`, { key: apiKey });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: 'conflict' });
    } finally {
      await worker.stop();
    }
  }, 60_000);

  it('cancels a queued run no worker has taken, with nothing charged and no data (422), and 404s another workspace', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const res = await server.request('POST', `/api/scrape/${scraperId}`, {
      key: apiKey,
      body: { url: `${slowSite.origin}/catalogue?page=1` },
    });
    const runId = res.body.data.runId;
    const other = await createTestWorkspace();
    expect((await server.request('POST', `/api/scrape/runs/${runId}/cancel`, { key: other.apiKey })).status).toBe(404);

    const cancel = await server.request('POST', `/api/scrape/runs/${runId}/cancel`, { key: apiKey });
    expect(cancel.status).toBe(200);
    expect(cancel.body.run).toMatchObject({ status: 'cancelled', pages: 0, creditsCharged: 0 });
    const data = await server.request('GET', `/api/${scraperId}/data/${runId}`, { key: apiKey });
    expect(data.status).toBe(422);
    expect((await getBalances(workspaceId)).crawl).toBe(100);
    const runs = await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key: apiKey });
    expect(runs.body.runs).toEqual([expect.objectContaining({ id: runId, status: 'cancelled', schedule_id: null })]);
  });
});
