import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { catalogueSite, serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { startService } from '../support/processes.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

// The API runs here without a worker; workers are separate processes, the first killed mid-run.
const server = useApiServer(scrapeEnv);
let site: FixtureSite;

beforeAll(async () => {
  site = await serveFixture(catalogueSite({ pages: 6, pageDelayMs: 400 }));
});
afterAll(() => site.close());

const startWorkerProcess = () =>
  startService(
    process.execPath,
    ['src/main.ts', 'worker'],
    {
      ...scrapeEnv,
      MONGODB_URI: server.databaseUri,
      SECRETS_KEY: testSecretsKey,
      SCRAPE_LOCK_LIFETIME_MS: '2000',
      LOG_LEVEL: 'error',
      PORT: '0',
    },
    null,
  );

describe('a worker killed mid-run', () => {
  it('has the run taken over and finished by another worker, each page charged once', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const first = await startWorkerProcess();
    const res = await server.request('POST', `/api/scrape/${scraperId}`, { key: apiKey, body: { url: `${site.origin}/catalogue?page=1` } });
    const runId = res.body.data.runId;

    const deadline = Date.now() + 20_000;
    while ((await server.request('GET', `/api/scrape/runs/${runId}`, { key: apiKey })).body.pagesCharged < 2) {
      if (Date.now() > deadline) throw new Error(`the first worker never got going:\n${first.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    first.kill();

    const second = await startWorkerProcess();
    try {
      const run = await waitForRun(server, apiKey, runId, 30_000);
      // Exactly once: each page is an item of the run's usage account, charged in the same write as the balance.
      expect(run).toMatchObject({ status: 'completed', pages: 6, pagesCharged: 6, creditsCharged: 6 });
      expect((await getBalances(workspaceId)).crawl).toBe(94);
      const data = await server.request('GET', `/api/${scraperId}/data/${runId}`, { key: apiKey });
      expect(data.body.items).toHaveLength(18);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
