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
    const res = await server.request('PATCH', `/api/leads/${second!.id}`, { key: workspace.apiKey, body: { field: 'email', value: 'ONE@x.test' } });
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
    expect(res.body.field).toBe(field);
  });

  it('answers 404 for an unknown id or another workspace\'s lead', async () => {
    const { lead } = await oneLead();
    const other = await createTestWorkspace();
    const res = await server.request('PATCH', `/api/leads/${lead.id}`, { key: other.apiKey, body: { status: 'qualified' } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    const unknown = await server.request('PATCH', '/api/leads/0b5a8f8e-2a5e-4a39-8d43-6b7a4b3b2c1d', { key: other.apiKey, body: { status: 'new' } });
    expect(unknown.status).toBe(404);
  });
});
