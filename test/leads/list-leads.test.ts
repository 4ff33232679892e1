import { beforeAll, describe, expect, it } from 'vitest';
import { Lead } from '../../src/leads/lead.models.ts';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();

describe('GET /api/leads', () => {
  let workspace: TestWorkspace;
  let stored: Awaited<ReturnType<typeof importLeads>>;
  const runId = '2b0cf7a8-93c1-4b73-9a57-6f0f07b0f8a1';

  beforeAll(async () => {
    workspace = await createTestWorkspace();
    stored = await importLeads(server, workspace.apiKey, [
      { company: 'Acme Rockets', full_name: 'Ada Byron', email: 'ada@acme.test', domain: 'acme.test', status: 'qualified' },
      { company: 'Globex', full_name: 'Hank Scorpio', email: 'hank@globex.test', domain: 'globex.test', status: 'contacted' },
      { company: 'Initech', full_name: 'Peter Gibbons', email: 'peter@initech.test', domain: 'initech.test' },
      { company: 'Umbrella', full_name: 'Alice', email: 'alice@umbrella.test', status: 'disqualified' },
    ]);
    await server.request('PATCH', `/api/leads/${stored[3]!.id}`, { key: workspace.apiKey, body: { archived: true } });
    // A lead found by an agent run, and an unsubscribed one (set the way later features will set them).
    await Lead.updateOne({ _id: stored[2]!.id }, { $set: { agentRunId: runId } });
    await Lead.updateOne({ _id: stored[1]!.id }, { $set: { unsubscribedAt: new Date() } });
  });

  const list = async (query = '') => (await server.request('GET', `/api/leads${query}`, { key: workspace.apiKey })).body;

  it('returns leads newest first with totals, columns, past searches and the cap', async () => {
    const body = await list();
    expect(body.leads.map((l: { company: string }) => l.company)).toEqual(['Initech', 'Globex', 'Acme Rockets']);
    expect(body.total).toBe(3);
    expect(body.workspaceTotal).toBe(4);
    expect(body.leadLimit).toBe(5000);
    expect(body.customColumns).toEqual([]);
    expect(body.campaigns).toEqual([expect.objectContaining({ count: 4, label: expect.stringMatching(/^Import \d{4}-\d{2}-\d{2}$/) })]);
  });

  it.each([
    ['?q=ACME', ['Acme Rockets']],
    ['?q=globex.test', ['Globex']],
    ['?q=peter', ['Initech']],
    ['?q=ro', ['Acme Rockets']],
    ['?q=a.c', []],
    ['?status=qualified', ['Acme Rockets']],
    ['?status=archived', ['Umbrella']],
    ['?status=unsubscribed', ['Globex']],
    [`?agent_run_id=${runId}`, ['Initech']],
    ['?limit=1', ['Initech']],
    ['?limit=2&offset=1', ['Globex', 'Acme Rockets']],
    ['?brand=all', ['Initech', 'Globex', 'Acme Rockets']],
  ])('filters %s', async (query, companies) => {
    const body = await list(query);
    expect(body.leads.map((l: { company: string }) => l.company)).toEqual(companies);
    if (!query.includes('limit')) expect(body.total).toBe(companies.length);
    expect(body.workspaceTotal).toBe(4);
  });

  it('narrows by brand id', async () => {
    expect((await list(`?brand=${workspace.brandId}`)).total).toBe(3);
  });

  it("answers 404 naming brand for a brand that is not the workspace's", async () => {
    const res = await server.request('GET', '/api/leads?brand=7d1b3c4e-0f7a-4c1e-9a55-2b6d2f3e4a10', { key: workspace.apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', field: 'brand' });
  });

  it.each([
    ['?limit=501', 'limit'],
    ['?limit=0', 'limit'],
    ['?offset=-1', 'offset'],
    ['?status=hot', 'status'],
    ['?agent_run_id=nope', 'agent_run_id'],
    ['?brand=some-brand', 'brand'],
  ])('answers 400 naming the parameter for %s', async (query, field) => {
    const res = await server.request('GET', `/api/leads${query}`, { key: workspace.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it("never shows another workspace's leads", async () => {
    const other = await createTestWorkspace();
    const body = (await server.request('GET', '/api/leads', { key: other.apiKey })).body;
    expect(body).toMatchObject({ leads: [], total: 0, workspaceTotal: 0, campaigns: [] });
  });
});
