import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();

async function oneLead(extra: Record<string, unknown> = {}) {
  const workspace = await createTestWorkspace();
  const [lead] = await importLeads(server, workspace.apiKey, [{ company: 'Acme', email: 'ada@acme.test', ...extra }]);
  const patch = (body: unknown) => server.request('PATCH', `/api/leads/${lead!.id}`, { key: workspace.apiKey, body });
  return { workspace, lead: lead!, patch };
}

describe('PATCH /api/leads/{id}', () => {
  it('sets a core field and returns the updated lead', async () => {
    const { patch } = await oneLead();
    const res = await patch({ field: 'title', value: 'CTO' });
    expect(res.status).toBe(200);
    expect(res.body.lead).toMatchObject({ title: 'CTO', company: 'Acme' });
  });

  it('clears a field with an empty string or null', async () => {
    const { patch } = await oneLead({ title: 'CEO', phone: '+1 555' });
    expect((await patch({ field: 'title', value: '' })).body.lead.title).toBeNull();
    expect((await patch({ field: 'phone', value: null })).body.lead.phone).toBeNull();
  });

  it('writes a non-core field into custom, listed as an undeclared column', async () => {
    const { patch, workspace } = await oneLead();
    const res = await patch({ field: 'funding_round', value: 'Series B' });
    expect(res.body.lead.custom).toEqual({ funding_round: 'Series B' });
    const fields = await server.request('GET', '/api/leads/fields', { key: workspace.apiKey });
    expect(fields.body.fields).toEqual([
      { key: 'funding_round', label: 'funding_round', type: 'text', description: '', auto_research: false, declared: false },
    ]);
    expect((await patch({ field: 'funding_round', value: '' })).body.lead.custom).toEqual({});
  });

  it('sets status and score, and archives and restores', async () => {
    const { patch, workspace } = await oneLead();
    const updated = await patch({ status: 'qualified', score: 77 });
    expect(updated.body.lead).toMatchObject({ status: 'qualified', score: 77, archived_at: null });
    const archived = await patch({ archived: true });
    expect(archived.body.lead.archived_at).toMatch(/^\d{4}-/);
    expect((await server.request('GET', '/api/leads/capacity', { key: workspace.apiKey })).body.used).toBe(0);
    expect((await server.request('GET', '/api/leads', { key: workspace.apiKey })).body.total).toBe(0);
    const restored = await patch({ archived: false });
    expect(restored.body.lead.archived_at).toBeNull();
    expect((await server.request('GET', '/api/leads/capacity', { key: workspace.apiKey })).body.used).toBe(1);
  });

  it('refuses an email another lead already has with 409', async () => {
    const workspace = await createTestWorkspace();
    const [, second] = await importLeads(server, workspace.apiKey, [{ email: 'one@x.test' }, { email: 'two@x.test' }]);
    const res = await server.request('PATCH', `/api/leads/${second!.id}`, {
      key: workspace.apiKey,
      body: { field: 'email', value: 'ONE@x.test' },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
  });

  it.each([
    [{ field: 'x'.repeat(65), value: 'a' }, 'field'],
    [{ field: 'title', value: 'x'.repeat(2001) }, 'value'],
    [{ field: 'title' }, 'value'],
    [{ field: 'email', value: 'not-an-email' }, 'value'],
    [{ field: 'bad key!', value: 'a' }, 'field'],
    [{ score: 101 }, 'score'],
    [{ score: 1.5 }, 'score'],
    [{ status: 'hot' }, 'status'],
    [{ archived: 'yes' }, 'archived'],
    [{}, 'field'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const { patch } = await oneLead();
    const res = await patch(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      field,
      issues: [{ field, message: expect.stringMatching(new RegExp(`^${field}: `)) }],
    });
    expect(res.body.error).toContain(`${field}: `);
  });

  it("answers 404 for an unknown id or another workspace's lead", async () => {
    const { lead } = await oneLead();
    const other = await createTestWorkspace();
    const res = await server.request('PATCH', `/api/leads/${lead.id}`, { key: other.apiKey, body: { status: 'qualified' } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    const unknown = await server.request('PATCH', '/api/leads/0b5a8f8e-2a5e-4a39-8d43-6b7a4b3b2c1d', {
      key: other.apiKey,
      body: { status: 'new' },
    });
    expect(unknown.status).toBe(404);
  });
});

/** A lead as GET /api/leads shows it, archived or not. */
async function listedLead(key: string, id: string) {
  for (const query of ['limit=500', 'status=archived&limit=500']) {
    const res = await server.request('GET', `/api/leads?${query}`, { key });
    const lead = res.body.leads.find((l: { id: string }) => l.id === id);
    if (lead) return lead;
  }
  return undefined;
}

const capacityUsed = async (key: string) => (await server.request('GET', '/api/leads/capacity', { key })).body.used as number;

describe('PATCH /api/leads/{id} stores every change of a request or none', () => {
  it('refuses a taken email with 409 without archiving the lead', async () => {
    const workspace = await createTestWorkspace();
    const [, second] = await importLeads(server, workspace.apiKey, [{ email: 'one@x.test' }, { email: 'two@x.test' }]);
    const res = await server.request('PATCH', `/api/leads/${second!.id}`, {
      key: workspace.apiKey,
      body: { field: 'email', value: 'one@x.test', archived: true },
    });
    expect(res.status).toBe(409);
    expect(await listedLead(workspace.apiKey, second!.id)).toMatchObject({ email: 'two@x.test', archived_at: null });
    expect(await capacityUsed(workspace.apiKey)).toBe(2);
  });

  // Two requests give two leads the same email at once; the unique index refuses one of them with 409.
  it.each([
    { move: 'archiving', startArchived: false, archived: true },
    { move: 'restoring', startArchived: true, archived: false },
  ])('leaves the lead as it was when $move it loses a race for an email', async ({ startArchived, archived }) => {
    const { apiKey } = await createTestWorkspace();
    const pairs = 6;
    const leads = await importLeads(
      server,
      apiKey,
      Array.from({ length: pairs * 2 }, (_, i) => ({ email: `lead${i}@x.test`, title: 'CEO' })),
    );
    const movers = leads.slice(0, pairs);
    const others = leads.slice(pairs);
    if (startArchived) await server.request('PATCH', '/api/leads', { key: apiKey, body: { ids: movers.map((l) => l.id), archived: true } });

    const patch = (id: string, body: unknown) => server.request('PATCH', `/api/leads/${id}`, { key: apiKey, body });
    const races = await Promise.all(
      movers.map((mover, i) =>
        Promise.all([
          patch(mover.id, { field: 'email', value: `shared${i}@x.test`, archived, status: 'qualified' }),
          patch(others[i]!.id, { field: 'email', value: `shared${i}@x.test` }),
        ]),
      ),
    );

    let stored = pairs;
    for (const [i, [mine, theirs]] of races.entries()) {
      expect([mine.status, theirs.status].sort()).toEqual([200, 409]);
      const won = mine.status === 200;
      const lead = await listedLead(apiKey, movers[i]!.id);
      expect(lead).toMatchObject(won ? { email: `shared${i}@x.test`, status: 'qualified' } : { email: movers[i]!.email, status: 'new' });
      const nowArchived = won ? archived : startArchived;
      expect(lead.archived_at === null).toBe(!nowArchived);
      if (!nowArchived) stored += 1;
    }
    expect(await capacityUsed(apiKey)).toBe(stored);
  });

  it('stores no change when restoring on a full workspace (403 lead_limit)', async () => {
    const { apiKey } = await createTestWorkspace('free');
    for (let batch = 0; batch < 10; batch++) {
      const leads = Array.from({ length: 500 }, (_, i) => ({ company: 'Acme', email: `b${batch}-${i}@x.test` }));
      await importLeads(server, apiKey, leads);
    }
    const [archived] = (await server.request('GET', '/api/leads?limit=1', { key: apiKey })).body.leads;
    const patch = (body: unknown) => server.request('PATCH', `/api/leads/${archived.id}`, { key: apiKey, body });
    const archivedAt = (await patch({ archived: true })).body.lead.archived_at;
    await importLeads(server, apiKey, [{ email: 'last@x.test' }]);
    expect(await capacityUsed(apiKey)).toBe(5000);

    const refused = await patch({ field: 'title', value: 'CTO', status: 'qualified', score: 90, archived: false });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'lead_limit', used: 5000, limit: 5000 });
    expect(await listedLead(apiKey, archived.id)).toMatchObject({ title: null, status: 'new', score: null, archived_at: archivedAt });
    expect(await capacityUsed(apiKey)).toBe(5000);

    // With a slot free again, the same request stores everything.
    const [other] = (await server.request('GET', '/api/leads?limit=1', { key: apiKey })).body.leads;
    expect((await server.request('PATCH', `/api/leads/${other.id}`, { key: apiKey, body: { archived: true } })).status).toBe(200);
    const restored = await patch({ field: 'title', value: 'CTO', status: 'qualified', score: 90, archived: false });
    expect(restored.status).toBe(200);
    expect(await listedLead(apiKey, archived.id)).toMatchObject({ title: 'CTO', status: 'qualified', score: 90, archived_at: null });
    expect(await capacityUsed(apiKey)).toBe(5000);
  }, 120_000);
});
