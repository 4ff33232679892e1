import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useCatalogueAndForbiddenSites } from '../support/fixture-sites.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer(scrapeEnv, { worker: true });
const sites = useCatalogueAndForbiddenSites();

/** Stores ended runs of a scraper straight into the database, one a minute apart, oldest first. */
async function storeRuns(workspaceId: string, scraperId: string, statuses: string[]) {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const docs = statuses.map((status, n) => {
    const createdAt = new Date(start + n * 60_000);
    return {
      _id: randomUUID(),
      workspaceId,
      scraperId,
      url: `https://shop.example/${n}`,
      options: {},
      status,
      pages: 2,
      pagesCharged: 2,
      creditsCharged: 2,
      overageCredits: 1,
      failures: [],
      error: status === 'failed' ? 'boom' : null,
      errorCode: null,
      resultKey: null,
      resultChunks: 0,
      outputSchemaJson: null,
      startedAt: createdAt,
      finishedAt: createdAt,
      createdAt,
      updatedAt: createdAt,
    };
  });
  await mongoose.connection.db!.collection('scrape_runs').insertMany(docs as never[]);
  return docs;
}

describe("a scraper's runs", () => {
  it('lists a run the worker did with its pages and credits', async () => {
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const url = `${sites.site.origin}/catalogue?page=1`;
    const runId = (await server.request('POST', `/api/scrape/${scraperId}`, { key: apiKey, body: { url } })).body.data.runId;
    const run = await waitForRun(server, apiKey, runId);

    const res = await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      runs: [
        {
          id: runId,
          status: 'completed',
          url,
          pages: 4,
          credits: 4,
          created_at: run.created_at,
          finished_at: run.finished_at,
          error: null,
          // Started by the API, not by a schedule.
          schedule_id: null,
        },
      ],
      total: 1,
    });
  });

  it('answers 50 newest first by default, at most `limit`, and narrows by status', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);
    const other = await createScraper(server, apiKey);
    const stored = await storeRuns(
      workspaceId,
      scraperId,
      Array.from({ length: 120 }, (_, n) => (n % 3 === 0 ? 'failed' : 'completed')),
    );
    await storeRuns(workspaceId, other, ['completed']);
    const newestFirst = stored.map((d) => d._id).reverse();

    const page = await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key: apiKey });
    expect(page.body.total).toBe(120);
    expect(page.body.runs.map((r: { id: string }) => r.id)).toEqual(newestFirst.slice(0, 50));
    expect(page.body.runs[0]).toMatchObject({ pages: 2, credits: 3, url: 'https://shop.example/119' });

    const most = await server.request('GET', `/api/scrapers/${scraperId}/runs?limit=100`, { key: apiKey });
    expect(most.body.runs).toHaveLength(100);

    const failed = await server.request('GET', `/api/scrapers/${scraperId}/runs?status=failed&limit=5`, { key: apiKey });
    expect(failed.body.total).toBe(40);
    expect(failed.body.runs.map((r: { status: string; error: string }) => [r.status, r.error])).toEqual(Array(5).fill(['failed', 'boom']));
    expect(failed.body.runs[0].id).toBe(stored[117]!._id);
  });

  it("refuses a limit past 100, an unknown status, another workspace's scraper and a key without read", async () => {
    const workspace = await createTestWorkspace();
    const scraperId = await createScraper(server, workspace.apiKey);

    const tooMany = await server.request('GET', `/api/scrapers/${scraperId}/runs?limit=101`, { key: workspace.apiKey });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: 'validation_failed', field: 'limit' });
    const badStatus = await server.request('GET', `/api/scrapers/${scraperId}/runs?status=done`, { key: workspace.apiKey });
    expect(badStatus.body).toMatchObject({ code: 'validation_failed', field: 'status' });

    const stranger = await createTestWorkspace();
    const foreign = await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key: stranger.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');

    const refused = await server.request('GET', `/api/scrapers/${scraperId}/runs`, { key: await workspace.keyWith('agents') });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'missing_permission', permission: 'read' });
  });
});
