import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { catalogueSite, serveFixture, type FixtureSite } from '../support/fixture-sites.ts';
import { useTestClock } from '../support/clock.ts';
import { createScraper, scrapeEnv, waitForRun } from '../support/scraping.ts';

const server = useApiServer({ ...scrapeEnv, INVOKE_INLINE_TIMEOUT_MS: '1500' }, { worker: true });
const clock = useTestClock();
let site: FixtureSite;

beforeAll(async () => {
  site = await serveFixture(catalogueSite({ pages: 3 }));
});
afterAll(() => site.close());

const paramSchema = {
  type: 'object',
  properties: { page: { type: 'integer', minimum: 1 }, q: { type: 'string', maxLength: 50 } },
  required: ['page'],
};

async function setup(overrides: Record<string, unknown> = {}) {
  const workspace = await createTestWorkspace();
  const scraperId = await createScraper(server, workspace.apiKey, {
    name: 'One page',
    extract: { items: '.product', fields: { title: { selector: 'h2' }, price: { selector: '.price', type: 'number' } } },
  });
  const body = {
    slug: 'shop-search',
    name: 'Shop search',
    scraper_id: scraperId,
    url_template: `${site.origin}/catalogue?page={page}&q={q}`,
    param_schema: paramSchema,
    ...overrides,
  };
  const res = await server.request('POST', '/api/endpoints', { key: workspace.apiKey, body });
  expect(res.status).toBe(201);
  return { workspace, scraperId, endpoint: res.body.endpoint, invokeKey: await workspace.keyWith('endpoints:invoke') };
}

const invoke = (key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  server.request(init.method ?? 'GET', path, { key, body: init.body });

describe('published endpoints: management', () => {
  it("creates an endpoint with the spec's fields and the scraper's output schema", async () => {
    const { endpoint, scraperId } = await setup();
    expect(endpoint).toEqual({
      id: expect.any(String),
      slug: 'shop-search',
      name: 'Shop search',
      description: '',
      method: 'GET',
      scraper_id: scraperId,
      url_template: expect.stringContaining('/catalogue?page={page}&q={q}'),
      param_schema: paramSchema,
      output_schema: expect.objectContaining({ required: ['items'] }),
      freshness: 'cached_ok',
      cache_ttl_seconds: 3600,
      mode: 'sync',
      health: 'ok',
      drift: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('lists as an array, updates, refuses a taken slug with 409, and deletes', async () => {
    const { workspace, scraperId, endpoint } = await setup();
    const second = await server.request('POST', '/api/endpoints', {
      key: workspace.apiKey,
      body: { slug: 'other', name: 'Other', scraper_id: scraperId, url_template: `${site.origin}/catalogue` },
    });
    expect(second.status).toBe(201);
    const list = await server.request('GET', '/api/endpoints', { key: workspace.apiKey });
    expect(list.body.map((e: { slug: string }) => e.slug)).toEqual(['other', 'shop-search']);
    const taken = await server.request('POST', '/api/endpoints', {
      key: workspace.apiKey,
      body: { slug: 'shop-search', name: 'Again', scraper_id: scraperId, url_template: `${site.origin}/catalogue` },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.field).toBe('slug');
    const renameClash = await server.request('PATCH', `/api/endpoints/${second.body.endpoint.id}`, {
      key: workspace.apiKey,
      body: { slug: 'shop-search' },
    });
    expect(renameClash.status).toBe(409);
    const updated = await server.request('PATCH', `/api/endpoints/${endpoint.id}`, {
      key: workspace.apiKey,
      body: { mode: 'async', cache_ttl_seconds: 60 },
    });
    expect(updated.body.endpoint).toMatchObject({ mode: 'async', cache_ttl_seconds: 60, slug: 'shop-search' });
    expect((await server.request('DELETE', `/api/endpoints/${endpoint.id}`, { key: workspace.apiKey })).body).toEqual({
      ok: true,
      id: endpoint.id,
    });
    expect((await server.request('GET', `/api/endpoints/${endpoint.id}`, { key: workspace.apiKey })).status).toBe(404);
  });

  it('answers 404 naming scraper_id for a scraper the workspace does not have, on create and on update', async () => {
    const { workspace, endpoint } = await setup();
    const theirs = await createScraper(server, (await createTestWorkspace()).apiKey);
    const body = { slug: 'no-scraper', name: 'X', scraper_id: theirs, url_template: `${site.origin}/catalogue` };
    const created = await server.request('POST', '/api/endpoints', { key: workspace.apiKey, body });
    expect(created.status).toBe(404);
    expect(created.body).toMatchObject({ code: 'not_found', field: 'scraper_id' });
    const updated = await server.request('PATCH', `/api/endpoints/${endpoint.id}`, { key: workspace.apiKey, body: { scraper_id: theirs } });
    expect(updated.status).toBe(404);
    expect(updated.body).toMatchObject({ code: 'not_found', field: 'scraper_id' });
  });

  it('keeps a scraper while endpoints use it (409), then deletes it with its runs and results', async () => {
    const { workspace, scraperId, endpoint, invokeKey } = await setup();
    expect((await invoke(invokeKey, '/v1/e/shop-search?page=1')).status).toBe(200);
    const started = await server.request('POST', `/api/scrape/${scraperId}`, {
      key: workspace.apiKey,
      body: { url: `${site.origin}/catalogue?page=2` },
    });
    const runId = started.body.data.runId;
    expect((await waitForRun(server, workspace.apiKey, runId)).status).toBe('completed');

    const refused = await server.request('DELETE', `/api/scrapers/${scraperId}`, { key: workspace.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', endpoints: ['shop-search'] });
    expect(
      (await server.request('GET', `/api/endpoints/${endpoint.id}`, { key: workspace.apiKey })).body.endpoint.output_schema,
    ).toMatchObject({ required: ['items'] });

    await server.request('DELETE', `/api/endpoints/${endpoint.id}`, { key: workspace.apiKey });
    const deleted = await server.request('DELETE', `/api/scrapers/${scraperId}`, { key: workspace.apiKey });
    expect(deleted.body).toEqual({ ok: true, id: scraperId, runs_deleted: 2 });
    expect((await server.request('GET', `/api/scrape/runs/${runId}`, { key: workspace.apiKey })).status).toBe(404);
    expect((await server.request('GET', `/api/${scraperId}/data/${runId}`, { key: workspace.apiKey })).status).toBe(404);
    const chunks = mongoose.connection.db!.collection('scrape_result_chunks');
    expect(await chunks.countDocuments({ _id: { $regex: `^${runId}:` } as never })).toBe(0);
  });

  it.each([
    [{ slug: 'Shop Search' }, 'slug'],
    [{ url_template: 'ftp://x.test/{page}' }, 'url_template'],
    [{ url_template: 'http://x.test/?q={missing}' }, 'url_template'],
    [{ param_schema: { type: 'array' } }, 'param_schema'],
    [{ method: 'PUT' }, 'method'],
    [{ freshness: 'stale_ok' }, 'freshness'],
  ])('answers 400 naming the field for %j', async (overrides, field) => {
    const workspace = await createTestWorkspace();
    const scraperId = await createScraper(server, workspace.apiKey);
    const res = await server.request('POST', '/api/endpoints', {
      key: workspace.apiKey,
      body: {
        slug: 'ok-slug',
        name: 'X',
        scraper_id: scraperId,
        url_template: `${site.origin}/catalogue?page={page}`,
        param_schema: paramSchema,
        ...overrides,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });
});

describe('published endpoints: invoke', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup();
  });

  it('scrapes on a miss, then answers from the cache for free', async () => {
    const before = (await getBalances(ctx.workspace.workspaceId)).crawl;
    const miss = await invoke(ctx.invokeKey, '/v1/e/shop-search?page=2&q=tea');
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(miss.body.items.map((i: { title: string }) => i.title)).toEqual(['Product 4', 'Product 5', 'Product 6']);
    expect((await getBalances(ctx.workspace.workspaceId)).crawl).toBe(before - 1);

    const hitsBefore = site.hits.length;
    const hit = await invoke(ctx.invokeKey, '/v1/e/shop-search?q=tea&page=2');
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(Number(hit.headers.get('age'))).toBeGreaterThanOrEqual(0);
    expect(hit.body).toEqual(miss.body);
    expect(site.hits.length).toBe(hitsBefore);
    expect((await getBalances(ctx.workspace.workspaceId)).crawl).toBe(before - 1);

    const other = await invoke(ctx.invokeKey, '/v1/e/shop-search?page=3');
    expect(other.headers.get('x-cache')).toBe('MISS');
  });

  it('validates parameters against param_schema, naming the parameter', async () => {
    for (const [query, field] of [
      ['', 'page'],
      ['?page=0', 'page'],
      ['?page=two', 'page'],
      ['?page=1&colour=red', 'colour'],
    ] as const) {
      const res = await invoke(ctx.invokeKey, `/v1/e/shop-search${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.field, query).toBe(field);
    }
  });

  it('scrapes every time when always_fresh, and again once a cached result expires', async () => {
    const fresh = await setup({ slug: 'always', freshness: 'always_fresh' });
    for (let i = 0; i < 2; i++) expect((await invoke(fresh.invokeKey, '/v1/e/always?page=1')).headers.get('x-cache')).toBe('MISS');

    const short = await setup({ slug: 'short-lived', cache_ttl_seconds: 1 });
    expect((await invoke(short.invokeKey, '/v1/e/short-lived?page=1')).headers.get('x-cache')).toBe('MISS');
    expect((await invoke(short.invokeKey, '/v1/e/short-lived?page=1')).headers.get('x-cache')).toBe('HIT');
    clock.advance(1_500);
    const expired = await invoke(short.invokeKey, '/v1/e/short-lived?page=1');
    expect(expired.headers.get('x-cache'), JSON.stringify(expired.body)).toBe('MISS');
  });

  it("caches an async call's result when its run completes, without anyone polling it", async () => {
    const asyncEndpoint = await setup({ slug: 'unpolled', mode: 'async' });
    const accepted = await invoke(asyncEndpoint.invokeKey, '/v1/e/unpolled?page=2');
    expect(accepted.status).toBe(202);
    await waitForRun(server, asyncEndpoint.workspace.apiKey, accepted.body.runId);
    const deadline = Date.now() + 10_000;
    let again = await invoke(asyncEndpoint.invokeKey, '/v1/e/unpolled?page=2');
    while (again.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      again = await invoke(asyncEndpoint.invokeKey, '/v1/e/unpolled?page=2');
    }
    expect(again.status).toBe(200);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.body.items.map((i: { title: string }) => i.title)).toEqual(['Product 4', 'Product 5', 'Product 6']);
  });

  it('answers 202 in async mode and past the inline budget, with the result to poll', async () => {
    const asyncEndpoint = await setup({ slug: 'later', mode: 'async' });
    const accepted = await invoke(asyncEndpoint.invokeKey, '/v1/e/later?page=1');
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ runId: expect.any(String), status: 'queued' });
    const result = await pollResult(asyncEndpoint.invokeKey, 'later', accepted.body.runId);
    expect(result.items).toHaveLength(3);

    const slow = await setup({
      slug: 'slow',
      url_template: `${site.origin}/slow?ms={ms}`,
      param_schema: { type: 'object', properties: { ms: { type: 'integer' } } },
    });
    await server.request('PATCH', `/api/scrapers/${slow.scraperId}`, {
      key: slow.workspace.apiKey,
      body: { extract: { fields: { heading: { selector: 'h1' } } } },
    });
    const overBudget = await invoke(slow.invokeKey, '/v1/e/slow?ms=2500');
    expect(overBudget.status).toBe(202);
    expect(await pollResult(slow.invokeKey, 'slow', overBudget.body.runId)).toEqual({ heading: 'Slow page' });
  });

  it("takes POST endpoints' parameters from the JSON body and refuses the other method", async () => {
    const post = await setup({ slug: 'by-post', method: 'POST' });
    const res = await invoke(post.invokeKey, '/v1/e/by-post', { method: 'POST', body: { page: 1, q: 'x' } });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(3);
    expect((await invoke(post.invokeKey, '/v1/e/by-post', { method: 'POST', body: { page: '1' } })).status).toBe(400);
    expect((await invoke(post.invokeKey, '/v1/e/by-post?page=1')).status).toBe(405);
  });

  it('needs endpoints:invoke and keeps endpoints to their workspace', async () => {
    const readKey = await ctx.workspace.keyWith('read');
    const denied = await invoke(readKey, '/v1/e/shop-search?page=1');
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ success: false, permission: 'endpoints:invoke' });
    const other: TestWorkspace = await createTestWorkspace();
    expect((await invoke(other.apiKey, '/v1/e/shop-search?page=1')).status).toBe(404);
    const anonymous = await server.request('GET', '/v1/e/shop-search?page=1');
    expect(anonymous.body).toMatchObject({ success: false, errorType: 'authentication_error' });
  });
});

async function pollResult(key: string, slug: string, runId: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await invoke(key, `/v1/e/${slug}/results/${runId}`);
    if (res.status === 200) return res.body;
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ runId, status: expect.stringMatching(/queued|running/) });
    if (Date.now() > deadline) throw new Error('no result');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('published endpoints in the OpenAPI document', () => {
  it("types each of the workspace's endpoints at its own path when asked with a key", async () => {
    const { workspace } = await setup({ slug: 'typed-search', description: 'Search the shop' });
    const shared = (await server.request('GET', '/openapi.json')).body;
    expect(shared.paths['/v1/e/typed-search']).toBeUndefined();
    const own = (await server.request('GET', '/openapi.json', { key: workspace.apiKey })).body;
    const operation = own.paths['/v1/e/typed-search'].get;
    expect(operation.summary).toBe('Shop search');
    expect(operation.parameters).toEqual([
      { in: 'query', name: 'page', required: true, schema: { type: 'integer', minimum: 1 } },
      { in: 'query', name: 'q', required: false, schema: { type: 'string', maxLength: 50 } },
    ]);
    expect(operation.responses['200'].content['application/json'].schema.required).toEqual(['items']);
    const SwaggerParser = (await import('@apidevtools/swagger-parser')).default;
    await SwaggerParser.validate(structuredClone(own));
  });
});
