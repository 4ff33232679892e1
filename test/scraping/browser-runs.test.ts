import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });
let site: FixtureSite;

const app = `<!doctype html><html><body><ul id="team"></ul>
<script>setTimeout(() => { document.getElementById('team').innerHTML = '<li><b>Ada</b> <i>CTO</i></li><li><b>Grace</b> <i>CEO</i></li>'; }, 200);</script>
</body></html>`;

beforeAll(async () => {
  site = await serveFixture((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(app));
});
afterAll(() => site.close());

describe('browser engine runs', () => {
  it('renders the page in Chromium, waits for the selector, and charges 3 credits a page', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, {
      name: 'Team page',
      engine: 'browser',
      extract: { items: '#team li', fields: { name: { selector: 'b' }, title: { selector: 'i' } } },
    });
    const res = await server.request('POST', `/api/scrape/${scraperId}`, {
      key: apiKey,
      body: { url: `${site.origin}/team`, options: { wait_for: '#team li' } },
    });
    expect(res.status).toBe(202);
    const run = await waitForRun(server, apiKey, res.body.data.runId, 60_000);
    expect(run).toMatchObject({ status: 'completed', pages: 1, creditsCharged: 3 });
    const data = await server.request('GET', `/api/${scraperId}/data/${run.id}`, { key: apiKey });
    expect(data.body).toEqual({
      items: [
        { name: 'Ada', title: 'CTO' },
        { name: 'Grace', title: 'CEO' },
      ],
    });
    expect((await getBalances(workspaceId)).crawl).toBe(97);
  }, 90_000);
});

describe('GraphQL for scraping', () => {
  it('lists scrapers and invokes a published endpoint through the generic invoke field', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, { name: 'Static', extract: { fields: { heading: { selector: 'h1' } } } });
    await server.request('POST', '/api/endpoints', {
      key: apiKey,
      body: {
        slug: 'static',
        name: 'Static',
        scraper_id: scraperId,
        url_template: `${site.origin}/static`,
        output_schema: { type: 'object' },
      },
    });
    const query = '{ scrapersList { scrapers { id name engine } } endpointsInvoke(slug: "static", params: {}) { status cache data } }';
    const res = await server.request('POST', '/graphql', { key: apiKey, body: { query } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.scrapersList.scrapers).toEqual([{ id: scraperId, name: 'Static', engine: 'http' }]);
    expect(res.body.data.endpointsInvoke).toEqual({ status: 'completed', cache: 'MISS', data: { heading: null } });
  });
});
