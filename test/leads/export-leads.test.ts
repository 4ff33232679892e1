import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Lead } from '../../src/leads/lead.models.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { parseCsv } from '../support/csv.ts';
import { importLeads, storeFillerLeads } from '../support/leads.ts';

const server = useApiServer();

const exportCsv = (query: string, key?: string) =>
  fetch(`${server.baseUrl}/api/leads/export${query}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
const rowsOf = async (query: string, key: string) => {
  const res = await exportCsv(query, key);
  expect(res.status).toBe(200);
  return parseCsv(await res.text());
};

const coreHeader = [
  'id',
  'company',
  'full_name',
  'title',
  'email',
  'phone',
  'domain',
  'linkedin_url',
  'location',
  'source_url',
  'score',
  'status',
  'email_status',
  'created_at',
];

describe('GET /api/leads/export', () => {
  it('answers every lead as a CSV attachment: core fields, then custom columns, formulas neutralised', async () => {
    const { apiKey } = await createTestWorkspace();
    await server.request('POST', '/api/leads/fields', { key: apiKey, body: { label: 'Revenue', type: 'number' } });
    const [ada, formula] = await importLeads(server, apiKey, [
      {
        company: 'Acme, Inc.',
        full_name: 'Ada "The Countess" Byron',
        email: 'ada@acme.test',
        domain: 'acme.test',
        score: 90,
        status: 'qualified',
        custom: { revenue: '-3', notes: 'line one\nline two' },
      },
      {
        company: '=HYPERLINK("http://evil.test","click")',
        full_name: '+1 caller',
        title: '@admin',
        location: '-Berlin',
        email: 'x@evil.test',
      },
    ]);

    const res = await exportCsv('', apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="leads-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('ratelimit-limit')).toBeTruthy();
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual([...coreHeader, 'revenue', 'notes']);
    // Newest first, as the list.
    expect(rows.map((row) => row[0])).toEqual([formula!.id, ada!.id]);
    expect(rows[1]).toEqual([
      ada!.id,
      'Acme, Inc.',
      'Ada "The Countess" Byron',
      '',
      'ada@acme.test',
      '',
      'acme.test',
      '',
      '',
      '',
      '90',
      'qualified',
      '',
      ada!.created_at,
      "'-3",
      'line one\nline two',
    ]);
    expect(rows[0]!.slice(1, 4)).toEqual(['\'=HYPERLINK("http://evil.test","click")', "'+1 caller", "'@admin"]);
    expect(rows[0]![8]).toBe("'-Berlin");
    expect(rows[0]!.slice(-2)).toEqual(['', '']);
  });

  it("honours the list's filters: q, status, archived, agent run and brand", async () => {
    const { apiKey } = await createTestWorkspace();
    const brand = (await server.request('POST', '/api/brands', { key: apiKey, body: { name: 'Second' } })).body.brand.id;
    const stored = await importLeads(server, apiKey, [
      { company: 'Acme', email: 'a@acme.test', status: 'qualified' },
      { company: 'Globex', email: 'g@globex.test', status: 'contacted' },
      { company: 'Initech', email: 'i@initech.test' },
    ]);
    const [other] = await importLeads(server, apiKey, [{ company: 'Hooli', email: 'h@hooli.test' }], { brand_id: brand });
    await server.request('PATCH', `/api/leads/${stored[1]!.id}`, { key: apiKey, body: { archived: true } });
    const runId = randomUUID();
    await Lead.updateOne({ _id: stored[2]!.id }, { $set: { agentRunId: runId } });

    const companies = async (query: string) => (await rowsOf(query, apiKey)).slice(1).map((row) => row[1]);
    expect(await companies('')).toEqual(['Hooli', 'Initech', 'Acme']);
    expect(await companies('?q=ACME')).toEqual(['Acme']);
    expect(await companies('?status=qualified')).toEqual(['Acme']);
    expect(await companies('?status=archived')).toEqual(['Globex']);
    expect(await companies(`?agent_run_id=${runId}`)).toEqual(['Initech']);
    expect(await companies(`?brand=${brand}`)).toEqual(['Hooli']);
    expect((await rowsOf(`?brand=${brand}`, apiKey))[1]![0]).toBe(other!.id);
    // Nothing matches: the header alone.
    expect(await rowsOf('?q=nobody', apiKey)).toEqual([coreHeader]);
  });

  it("streams past the list's 500 cap", async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    await storeFillerLeads(workspaceId, 1234);
    const [header, ...rows] = await rowsOf('', apiKey);
    expect(header).toEqual(coreHeader);
    expect(rows).toHaveLength(1234);
    expect(new Set(rows.map((row) => row[4])).size).toBe(1234);
  });

  it("refuses as the list does: no key, a key without read, bad filters, another workspace's brand, other methods", async () => {
    const workspace = await createTestWorkspace();
    const unauthenticated = await exportCsv('');
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ code: 'unauthorized' });
    const refused = await exportCsv('', await workspace.keyWith('agents'));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'missing_permission', permission: 'read' });
    const badStatus = await exportCsv('?status=hot', workspace.apiKey);
    expect(badStatus.status).toBe(400);
    expect(await badStatus.json()).toMatchObject({ code: 'validation_failed', field: 'status' });
    const badRun = await exportCsv('?agent_run_id=nope', workspace.apiKey);
    expect(await badRun.json()).toMatchObject({ code: 'validation_failed', field: 'agent_run_id' });
    const foreignBrand = (await createTestWorkspace()).brandId;
    const foreign = await exportCsv(`?brand=${foreignBrand}`, workspace.apiKey);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ code: 'not_found', field: 'brand' });
    const post = await server.request('POST', '/api/leads/export', { key: workspace.apiKey, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    // A read-only key may export.
    expect((await exportCsv('', await workspace.keyWith('read'))).status).toBe(200);
  });

  it('is documented in /openapi.json with its permission, filters and text/csv answer', async () => {
    const { paths } = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const operation = paths['/api/leads/export'].get;
    expect(operation['x-permission']).toBe('read');
    expect(operation.description).toContain('Permission: `read`.');
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual([
      'q',
      'status',
      'agent_run_id',
      'brand',
      'score_min',
      'score_max',
      'email_status',
      'has_email',
      'created_after',
      'created_before',
      'updated_after',
      'custom',
    ]);
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/csv']);
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401', '403', '404', '414', '429', '431', '500', '503']);
  });
});
