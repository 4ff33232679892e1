import { describe, expect, it } from 'vitest';
import { createOwnerKey, createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();

describe('brands', () => {
  it('creates brands and lists them, the default first', async () => {
    const { apiKey, brandId } = await createTestWorkspace();
    const created = await server.request('POST', '/api/brands', { key: apiKey, body: { name: 'Outbound EU' } });
    expect(created.status).toBe(201);
    expect(created.body.brand).toEqual({ id: expect.any(String), name: 'Outbound EU', is_default: false, created_at: expect.any(String) });
    const listed = await server.request('GET', '/api/brands', { key: apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.brands.map((b: { id: string; is_default: boolean }) => [b.id, b.is_default])).toEqual([
      [brandId, true],
      [created.body.brand.id, false],
    ]);
  });

  it('answers 400 naming the field for a bad name', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/brands', { key: apiKey, body: { name: '  ' } });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('name');
  });

  it('stores what a brand-bound key writes under its brand, and brand= narrows or widens lists', async () => {
    const workspace = await createTestWorkspace();
    const second = (await server.request('POST', '/api/brands', { key: workspace.apiKey, body: { name: 'Second' } })).body.brand.id;
    const boundKey = (await createOwnerKey(workspace.workspaceId, 'bound', ['read', 'write'], second)).apiKey;

    const [fromDefault] = await importLeads(server, workspace.apiKey, [{ email: 'default@x.test' }]);
    const [fromBound] = await importLeads(server, boundKey, [{ email: 'bound@x.test' }]);
    expect(fromDefault!.brand_id).toBe(workspace.brandId);
    expect(fromBound!.brand_id).toBe(second);

    const emails = async (query: string, key = workspace.apiKey) =>
      (await server.request('GET', `/api/leads${query}`, { key })).body.leads.map((l: { email: string }) => l.email).sort();
    expect(await emails(`?brand=${second}`)).toEqual(['bound@x.test']);
    expect(await emails(`?brand=${workspace.brandId}`)).toEqual(['default@x.test']);
    // Leads are pooled per workspace: without brand=, every brand's leads are listed.
    expect(await emails('', boundKey)).toEqual(['bound@x.test', 'default@x.test']);
    expect(await emails('?brand=all', boundKey)).toEqual(['bound@x.test', 'default@x.test']);
  });

  it("refuses another workspace's brand with 404 naming the field", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const listed = await server.request('GET', `/api/leads?brand=${theirs.brandId}`, { key: mine.apiKey });
    expect(listed.status).toBe(404);
    expect(listed.body).toMatchObject({ code: 'not_found', field: 'brand' });
    const imported = await server.request('POST', '/api/leads', {
      key: mine.apiKey,
      body: { brand_id: theirs.brandId, leads: [{ email: 'x@x.test' }] },
    });
    expect(imported.status).toBe(404);
    expect(imported.body).toMatchObject({ code: 'not_found', field: 'brand_id' });
  });
});
