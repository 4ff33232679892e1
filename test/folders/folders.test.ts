import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { catalogueScraper, createScraper } from '../support/scraping.ts';

const server = useApiServer();

const createFolder = async (key: string, name: string) => {
  const res = await server.request('POST', '/api/folders', { key, body: { name } });
  expect(res.status).toBe(201);
  return res.body.folder as { id: string; name: string; scraper_count: number };
};

describe('folders of scrapers', () => {
  it('creates, lists with scraper counts, renames and deletes a folder, whose scrapers stay filed nowhere', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await createFolder(apiKey, ' Lead sources ');
    expect(leads).toEqual({
      id: expect.any(String),
      name: 'Lead sources',
      scraper_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const prices = await createFolder(apiKey, 'Prices');

    const filed = await server.request('POST', '/api/scrapers', { key: apiKey, body: { ...catalogueScraper, folder_id: leads.id } });
    expect(filed.status).toBe(201);
    expect(filed.body.scraper.folder_id).toBe(leads.id);
    const second = await createScraper(server, apiKey, { ...catalogueScraper, name: 'Second', folder_id: leads.id });
    const loose = await createScraper(server, apiKey);
    expect((await server.request('GET', `/api/scrapers/${loose}`, { key: apiKey })).body.scraper.folder_id).toBeNull();

    const list = await server.request('GET', '/api/folders', { key: apiKey });
    expect(list.status).toBe(200);
    expect(list.body.folders.map((f: { name: string; scraper_count: number }) => [f.name, f.scraper_count])).toEqual([
      ['Lead sources', 2],
      ['Prices', 0],
    ]);

    // Moved to another folder, then narrowed to it.
    const moved = await server.request('PATCH', `/api/scrapers/${second}`, { key: apiKey, body: { folder_id: prices.id } });
    expect(moved.body.scraper.folder_id).toBe(prices.id);
    const inPrices = await server.request('GET', `/api/scrapers?folder_id=${prices.id}`, { key: apiKey });
    expect(inPrices.body.scrapers.map((s: { id: string }) => s.id)).toEqual([second]);
    expect((await server.request('GET', '/api/scrapers', { key: apiKey })).body.scrapers).toHaveLength(3);

    const renamed = await server.request('PATCH', `/api/folders/${prices.id}`, { key: apiKey, body: { name: 'Price watch' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.folder).toMatchObject({ id: prices.id, name: 'Price watch', scraper_count: 1 });

    const deleted = await server.request('DELETE', `/api/folders/${leads.id}`, { key: apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: true, id: leads.id, scrapers_unfiled: 1 });
    const kept = await server.request('GET', `/api/scrapers/${filed.body.scraper.id}`, { key: apiKey });
    expect(kept.status).toBe(200);
    expect(kept.body.scraper.folder_id).toBeNull();
    expect((await server.request('GET', '/api/folders', { key: apiKey })).body.folders.map((f: { name: string }) => f.name)).toEqual([
      'Price watch',
    ]);

    // Unfiled by hand.
    const unfiled = await server.request('PATCH', `/api/scrapers/${second}`, { key: apiKey, body: { folder_id: null } });
    expect(unfiled.body.scraper.folder_id).toBeNull();
  });

  it('answers 409 naming `name` for a name in use in the workspace, on create and rename; other workspaces may use it', async () => {
    const { apiKey } = await createTestWorkspace();
    await createFolder(apiKey, 'Shops');
    const other = await createFolder(apiKey, 'Other');
    const taken = await server.request('POST', '/api/folders', { key: apiKey, body: { name: 'Shops' } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'conflict', field: 'name' });
    const renamed = await server.request('PATCH', `/api/folders/${other.id}`, { key: apiKey, body: { name: 'Shops' } });
    expect(renamed.status).toBe(409);
    expect(renamed.body).toMatchObject({ code: 'conflict', field: 'name' });

    await createFolder((await createTestWorkspace()).apiKey, 'Shops');
  });

  it('refuses bad names, and a key without write', async () => {
    const workspace = await createTestWorkspace();
    for (const body of [{}, { name: '  ' }, { name: 'x'.repeat(121) }, { name: 'ok', extra: 1 }]) {
      const res = await server.request('POST', '/api/folders', { key: workspace.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    const readOnly = await workspace.keyWith('read');
    const refused = await server.request('POST', '/api/folders', { key: readOnly, body: { name: 'Nope' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'missing_permission', permission: 'write' });
    // Reading is `read`.
    expect((await server.request('GET', '/api/folders', { key: readOnly })).body).toEqual({ folders: [] });
  });

  it("treats another workspace's folder as none: 404 to rename, delete, file a scraper in or narrow by", async () => {
    const owner = await createTestWorkspace();
    const folder = await createFolder(owner.apiKey, 'Private');
    const { apiKey } = await createTestWorkspace();
    const scraperId = await createScraper(server, apiKey);

    const rename = await server.request('PATCH', `/api/folders/${folder.id}`, { key: apiKey, body: { name: 'Mine' } });
    expect(rename.status).toBe(404);
    expect((await server.request('DELETE', `/api/folders/${folder.id}`, { key: apiKey })).status).toBe(404);
    const create = await server.request('POST', '/api/scrapers', { key: apiKey, body: { ...catalogueScraper, folder_id: folder.id } });
    expect(create.status).toBe(404);
    expect(create.body).toMatchObject({ code: 'not_found', field: 'folder_id' });
    const update = await server.request('PATCH', `/api/scrapers/${scraperId}`, { key: apiKey, body: { folder_id: folder.id } });
    expect(update.body).toMatchObject({ code: 'not_found', field: 'folder_id' });
    const narrow = await server.request('GET', `/api/scrapers?folder_id=${folder.id}`, { key: apiKey });
    expect(narrow.body).toMatchObject({ code: 'not_found', field: 'folder_id' });
    expect((await server.request('GET', `/api/scrapers?folder_id=${randomUUID()}`, { key: apiKey })).status).toBe(404);

    // The owner's folder is untouched.
    expect((await server.request('GET', '/api/folders', { key: owner.apiKey })).body.folders).toMatchObject([
      { id: folder.id, name: 'Private' },
    ]);
  });

  it('is the same procedures on GraphQL and tRPC', async () => {
    const { apiKey } = await createTestWorkspace();
    const graphql = await server.request('POST', '/graphql', {
      key: apiKey,
      body: { query: 'mutation { foldersCreate(name: "Via GraphQL") { folder { id name scraper_count } } }' },
    });
    expect(graphql.body.data.foldersCreate.folder).toMatchObject({ name: 'Via GraphQL', scraper_count: 0 });
    const trpc = await server.request('GET', '/trpc/folders.list', { key: apiKey });
    expect(trpc.body.result.data.folders.map((f: { name: string }) => f.name)).toEqual(['Via GraphQL']);
  });
});
