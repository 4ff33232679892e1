import { describe, expect, it } from 'vitest';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { startService } from '../support/processes.ts';
import { catalogueScraper, createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const missingChromium = '/nonexistent/chromium';
const server = useApiServer({ ...scrapeEnv, CHROMIUM_PATH: missingChromium }, { worker: true });
const sites = useCatalogueAndForbiddenSites();

describe('a CHROMIUM_PATH with no Chromium', () => {
  it('fails browser runs saying so, free of charge, while http runs work', async () => {
    const { apiKey } = await createTestWorkspace();
    const browser = await createScraper(server, apiKey, { ...catalogueScraper, engine: 'browser' });
    const started = await server.request('POST', `/api/scrape/${browser}`, {
      key: apiKey,
      body: { url: `${sites.site.origin}/catalogue?page=1` },
    });
    const run = await waitForRun(server, apiKey, started.body.data.runId);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'browser_unavailable', creditsCharged: 0 });
    expect(run.error).toContain(`CHROMIUM_PATH (${missingChromium})`);

    const http = await createScraper(server, apiKey);
    const ok = await server.request('POST', `/api/scrape/${http}`, { key: apiKey, body: { url: `${sites.site.origin}/catalogue?page=1` } });
    expect((await waitForRun(server, apiKey, ok.body.data.runId)).status).toBe('completed');
  });

  it('is reported when a worker starts', async () => {
    const worker = await startService(
      process.execPath,
      ['src/main.ts', 'worker'],
      { MONGODB_URI: server.databaseUri, SECRETS_KEY: testSecretsKey, CHROMIUM_PATH: missingChromium, LOG_LEVEL: 'warn', PORT: '0' },
      null,
    );
    try {
      const deadline = Date.now() + 20_000;
      while (!worker.output().includes('worker started') && !worker.output().includes('Chromium is not installed') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(worker.output()).toContain(`Chromium is not installed at CHROMIUM_PATH (${missingChromium})`);
    } finally {
      await worker.stop();
    }
  }, 30_000);
});
