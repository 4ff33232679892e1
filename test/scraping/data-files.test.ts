import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { catalogueSite, serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });
let site: FixtureSite;
let formulaSite: FixtureSite;

beforeAll(async () => {
  site = await serveFixture(catalogueSite({ pages: 2 }));
  formulaSite = await serveFixture((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<div class="row"><b>=HYPERLINK("http://evil.test")</b><i>-3</i><u>yes</u><s>a</s><s>b</s></div><div class="row"><b>Plain, "quoted"</b><i>x</i></div>',
    );
  });
});
afterAll(async () => {
  await site.close();
  await formulaSite.close();
});

async function completedRun(body?: Record<string, unknown>, url = `${site.origin}/catalogue?page=1`) {
  const { apiKey } = await createTestWorkspace();
  const scraperId = await createScraper(server, apiKey, body);
  const res = await server.request('POST', `/api/scrape/${scraperId}`, { key: apiKey, body: { url } });
  const run = await waitForRun(server, apiKey, res.body.data.runId);
  expect(run.status).toBe('completed');
  return { apiKey, scraperId, runId: run.id as string };
}

describe("a run's data as files", () => {
  it('streams CSV with the fields as columns and JSON Lines with typed values; json stays the default', async () => {
    const { apiKey, scraperId, runId } = await completedRun();
    const csv = await server.request('GET', `/api/${scraperId}/data/${runId}?format=csv`, { key: apiKey });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="scrape-${runId}-\\d{4}-\\d\\d-\\d\\d\\.csv"$`),
    );
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toEqual(['title', 'price', 'link']);
    expect(rows).toHaveLength(6);
    expect(rows[5]).toEqual({ title: 'Product 6', price: '1006.5', link: `${site.origin}/p/6` });

    const jsonl = await server.request('GET', `/api/${scraperId}/data/${runId}?format=jsonl`, { key: apiKey });
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    const lines = (jsonl.body as string)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(6);
    expect(lines[0]).toEqual({ title: 'Product 1', price: 1001.5, link: `${site.origin}/p/1` });

    const json = await server.request('GET', `/api/${scraperId}/data/${runId}`, { key: apiKey });
    expect(json.body.items).toEqual(lines);
  });

  it('neutralises formula cells and writes booleans, lists and missing values plainly', async () => {
    const { apiKey, scraperId, runId } = await completedRun(
      {
        name: 'Cells',
        extract: {
          items: '.row',
          fields: {
            name: { selector: 'b' },
            score: { selector: 'i', type: 'number' },
            flag: { selector: 'u', type: 'boolean' },
            tags: { selector: 's', all: true },
          },
        },
      },
      `${formulaSite.origin}/`,
    );
    const csv = await server.request('GET', `/api/${scraperId}/data/${runId}?format=csv`, { key: apiKey });
    expect(parse(csv.body, { columns: true })).toEqual([
      { name: `'=HYPERLINK("http://evil.test")`, score: '-3', flag: 'true', tags: '["a","b"]' },
      { name: 'Plain, "quoted"', score: '', flag: '', tags: '[]' },
    ]);
  });

  it('answers 202 while the run works, 422 for a failed run, 404 for another scraper, 400 for an unknown format', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey, { name: 'Slow', extract: { fields: { h: { selector: 'h1' } } } });
    const slow = (await server.request('POST', `/api/scrape/${scraperId}`, { key: apiKey, body: { url: `${site.origin}/slow?ms=1500` } }))
      .body.data.runId;
    const pending = await server.request('GET', `/api/${scraperId}/data/${slow}?format=csv`, { key: apiKey });
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({ runId: slow, status: expect.stringMatching(/queued|running/) });
    expect((await server.request('GET', `/api/${crypto.randomUUID()}/data/${slow}?format=csv`, { key: apiKey })).status).toBe(404);
    expect((await server.request('GET', `/api/${scraperId}/data/${slow}?format=xlsx`, { key: apiKey })).status).toBe(400);

    const missing = (await server.request('POST', `/api/scrape/${scraperId}`, { key: apiKey, body: { url: `${site.origin}/missing` } }))
      .body.data.runId;
    await waitForRun(server, apiKey, missing);
    const failed = await server.request('GET', `/api/${scraperId}/data/${missing}?format=jsonl`, { key: apiKey });
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({ success: false, code: 'run_failed' });
    expect((await server.request('GET', `/api/${scraperId}/data/${missing}?format=csv`)).status).toBe(401);
  });
});
