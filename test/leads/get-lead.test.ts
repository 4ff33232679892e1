import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();

describe('GET /api/leads/{id}', () => {
  it('answers { lead } in the shape PATCH answers', async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead] = await importLeads(server, apiKey, [{ company: 'Acme', email: 'ada@acme.test', custom: { tier: 'A' } }]);
    const patched = await server.request('PATCH', `/api/leads/${lead!.id}`, {
      key: apiKey,
      body: { field: 'title', value: 'CTO', score: 70 },
    });
    const res = await server.request('GET', `/api/leads/${lead!.id}`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ lead: patched.body.lead });
    expect(res.body.lead).toMatchObject({ id: lead!.id, company: 'Acme', title: 'CTO', score: 70, custom: { tier: 'A' } });
  });

  it('answers an archived lead too', async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead] = await importLeads(server, apiKey, [{ email: 'gone@acme.test' }]);
    await server.request('PATCH', `/api/leads/${lead!.id}`, { key: apiKey, body: { archived: true } });
    const res = await server.request('GET', `/api/leads/${lead!.id}`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.lead.archived_at).toMatch(/^\d{4}-/);
  });

  it("answers 404 not_found for another workspace's lead or none", async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead] = await importLeads(server, apiKey, [{ email: 'mine@acme.test' }]);
    const other = await createTestWorkspace();
    const foreign = await server.request('GET', `/api/leads/${lead!.id}`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'not_found' });
    const none = await server.request('GET', '/api/leads/0b5a8f8e-2a5e-4a39-8d43-6b7a4b3b2c1d', { key: apiKey });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('not_found');
  });

  it('answers 400 naming id for an id that is not a UUID', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('GET', '/api/leads/not-a-uuid', { key: apiKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'id' });
  });

  it('leaves the fixed paths under /api/leads to their own operations', async () => {
    const { apiKey } = await createTestWorkspace();
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body).toMatchObject({ used: 0 });
    expect((await server.request('GET', '/api/leads/fields', { key: apiKey })).body).toEqual({ fields: [] });
    expect((await server.request('GET', '/api/leads/research-profiles', { key: apiKey })).body).toEqual({ profiles: [] });
    expect((await server.request('GET', '/api/leads/validate', { key: apiKey })).body).toEqual({ jobs: [] });
  });

  it('is leadsGet on GraphQL and leads.get on tRPC', async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead] = await importLeads(server, apiKey, [{ company: 'Graph Co', email: 'g@x.test' }]);
    const graphql = await server.request('POST', '/graphql', {
      key: apiKey,
      body: { query: `{ leadsGet(id: "${lead!.id}") { lead { id company } } }` },
    });
    expect(graphql.body.data.leadsGet.lead).toEqual({ id: lead!.id, company: 'Graph Co' });
    const input = encodeURIComponent(JSON.stringify({ id: lead!.id }));
    const trpc = await server.request('GET', `/trpc/leads.get?input=${input}`, { key: apiKey });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.lead.email).toBe('g@x.test');
  });
});
