import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { createScraper } from '../support/scraping.ts';

// Two requests a minute per key, so a document fetch that spent a token would show.
const server = useApiServer({ RATE_LIMIT_PER_MINUTE: '2' });

/** A published endpoint (the owner key spends its two requests on it). */
async function publishEndpoint(workspace: TestWorkspace, slug: string) {
  const scraperId = await createScraper(server, workspace.apiKey, {
    name: 'One page',
    extract: { items: '.product', fields: { title: { selector: 'h2' } } },
  });
  const res = await server.request('POST', '/api/endpoints', {
    key: workspace.apiKey,
    body: {
      slug,
      name: 'Shop search',
      scraper_id: scraperId,
      url_template: 'https://shop.example/search?q={q}',
      param_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  });
  expect(res.status).toBe(201);
}

describe('GET /openapi.json with a key', () => {
  it("types the workspace's endpoints for a key that may only invoke them", async () => {
    const workspace = await createTestWorkspace();
    await publishEndpoint(workspace, 'shop-search');
    const invokeOnly = await workspace.keyWith('endpoints:invoke');
    const { status, body } = await server.request('GET', '/openapi.json', { key: invokeOnly });
    expect(status).toBe(200);
    expect(body.paths['/v1/e/shop-search'].get).toMatchObject({ summary: 'Shop search', 'x-permission': 'endpoints:invoke' });
    expect(body.paths['/v1/e/shop-search'].get.parameters).toEqual([expect.objectContaining({ in: 'query', name: 'q', required: true })]);
    // Another workspace's key, or a bad one, sees the shared document.
    const other = await (await createTestWorkspace()).keyWith('endpoints:invoke');
    expect((await server.request('GET', '/openapi.json', { key: other })).body.paths['/v1/e/shop-search']).toBeUndefined();
    const bad = await server.request('GET', '/openapi.json', { key: `lok_${'0'.repeat(40)}` });
    expect(bad.status).toBe(200);
    expect(bad.body.paths['/v1/e/shop-search']).toBeUndefined();
    expect(bad.body.paths['/v1/e/{slug}']).toBeDefined();
  });

  it("spends none of the key's rate limit", async () => {
    const { apiKey } = await createTestWorkspace();
    for (let i = 0; i < 4; i++) {
      const res = await server.request('GET', '/openapi.json', { key: apiKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBeNull();
    }
    const user = await server.request('GET', '/api/user', { key: apiKey });
    expect(user.status).toBe(200);
    expect(user.headers.get('ratelimit-remaining')).toBe('1');
  });
});
