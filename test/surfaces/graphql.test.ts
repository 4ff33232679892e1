import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const graphql = async (key: string | undefined, query: string, variables?: Record<string, unknown>) =>
  (await server.request('POST', '/graphql', { key, body: { query, variables } })).body;

describe('GraphQL surface', () => {
  it('runs the same procedures: import as a mutation, list as a query', async () => {
    const { apiKey } = await createTestWorkspace();
    const imported = await graphql(
      apiKey,
      `mutation Import($leads: [LeadsImportLeadsItemInput!]!) {
        leadsImport(name: "From GraphQL", leads: $leads) { created duplicates leads { id email custom status } }
      }`,
      { leads: [{ email: 'g@x.test', company: 'Graph Co', custom: { tier: 'A' }, status: 'qualified' }] },
    );
    expect(imported.errors).toBeUndefined();
    expect(imported.data.leadsImport).toMatchObject({ created: 1, duplicates: 0, leads: [{ email: 'g@x.test', custom: { tier: 'A' }, status: 'qualified' }] });

    const listed = await graphql(apiKey, '{ leadsList(q: "graph", limit: 10) { total workspaceTotal leadLimit leads { company } campaigns { label count } } }');
    expect(listed.data.leadsList).toEqual({
      total: 1,
      workspaceTotal: 1,
      leadLimit: 5000,
      leads: [{ company: 'Graph Co' }],
      campaigns: [{ label: 'From GraphQL', count: 1 }],
    });
  });

  it('answers errors with the same code and message as REST', async () => {
    const { apiKey } = await createTestWorkspace();
    const invalid = await graphql(apiKey, '{ leadsList(limit: 900) { total } }');
    expect(invalid.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'limit', status: 400 });
    const anonymous = await graphql(undefined, '{ leadsCapacity { used } }');
    expect(anonymous.errors[0].extensions).toMatchObject({ code: 'unauthorized', status: 401 });
    const badId = await graphql(apiKey, 'mutation { leadsDelete(ids: ["not-a-uuid"]) { deleted } }');
    expect(badId.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'ids.0' });
  });

  it('enforces permissions per key', async () => {
    const workspace = await createTestWorkspace();
    const readKey = await workspace.keyWith('read');
    const res = await graphql(readKey, 'mutation { leadsCreateField(label: "Size") { created } }');
    expect(res.errors[0].extensions).toMatchObject({ code: 'missing_permission', permission: 'write' });
  });

  it('derives documented types from the zod schemas', async () => {
    const { data } = await graphql(undefined, '{ __type(name: "Lead") { fields { name description type { kind ofType { name } } } } }');
    const email = data.__type.fields.find((f: { name: string }) => f.name === 'email');
    expect(email.description).toBe('Email address.');
    const status = data.__type.fields.find((f: { name: string }) => f.name === 'status');
    expect(status.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'LeadStatus' } });
  });

  it('serves GraphiQL without any external asset', async () => {
    const res = await server.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.body).toContain('GraphiQL');
    expect(res.body).not.toMatch(/<script[^>]+src="https?:/);
    expect(res.body).not.toMatch(/<link[^>]+href="https?:/);
  });
});
