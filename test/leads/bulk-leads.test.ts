import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();

describe('PATCH /api/leads (bulk)', () => {
  it('updates status and archive state of many leads', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'a@x.test' }, { email: 'b@x.test' }, { email: 'c@x.test' }]);
    const ids = leads.slice(0, 2).map((l) => l.id);
    const res = await server.request('PATCH', '/api/leads', { key: apiKey, body: { ids, status: 'contacted' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, updated: 2 });
    expect((await server.request('GET', '/api/leads?status=contacted', { key: apiKey })).body.total).toBe(2);

    const archive = await server.request('PATCH', '/api/leads', { key: apiKey, body: { ids, archived: true } });
    expect(archive.body).toEqual({ ok: true, updated: 2 });
    expect((await server.request('GET', '/api/leads', { key: apiKey })).body.total).toBe(1);
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body.used).toBe(1);
  });

  it('counts only leads whose status actually changed', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [
      { email: 'a@x.test' },
      { email: 'b@x.test', status: 'contacted' },
      { email: 'c@x.test' },
    ]);
    const ids = leads.map((l) => l.id);
    const res = await server.request('PATCH', '/api/leads', { key: apiKey, body: { ids, status: 'contacted' } });
    expect(res.body).toEqual({ ok: true, updated: 2 });
    const again = await server.request('PATCH', '/api/leads', { key: apiKey, body: { ids, status: 'contacted' } });
    expect(again.body).toEqual({ ok: true, updated: 0 });
    expect((await server.request('GET', '/api/leads?status=contacted', { key: apiKey })).body.total).toBe(3);
  });

  it('counts archiving archived leads, or restoring stored ones, as no change', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'a@x.test' }, { email: 'b@x.test' }, { email: 'c@x.test' }]);
    const ids = leads.map((l) => l.id);
    const patch = (body: Record<string, unknown>) => server.request('PATCH', '/api/leads', { key: apiKey, body: { ids, ...body } });
    expect((await patch({ ids: ids.slice(0, 1), archived: true })).body).toEqual({ ok: true, updated: 1 });
    expect((await patch({ archived: true })).body).toEqual({ ok: true, updated: 2 });
    expect((await patch({ archived: true })).body).toEqual({ ok: true, updated: 0 });
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body.used).toBe(0);
    expect((await patch({ archived: false })).body).toEqual({ ok: true, updated: 3 });
    expect((await patch({ archived: false })).body).toEqual({ ok: true, updated: 0 });
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body.used).toBe(3);
  });

  it('counts a lead once when its status and archive state both change', async () => {
    const { apiKey } = await createTestWorkspace();
    const [both, neither, archiveOnly, statusOnly] = await importLeads(server, apiKey, [
      { email: 'both@x.test' },
      { email: 'neither@x.test', status: 'contacted' },
      { email: 'archive@x.test', status: 'contacted' },
      { email: 'status@x.test' },
    ]);
    const archive = { ids: [neither!.id, statusOnly!.id], archived: true };
    expect((await server.request('PATCH', '/api/leads', { key: apiKey, body: archive })).body.updated).toBe(2);
    const ids = [both!.id, neither!.id, archiveOnly!.id, statusOnly!.id];
    const res = await server.request('PATCH', '/api/leads', { key: apiKey, body: { ids, status: 'contacted', archived: true } });
    expect(res.body).toEqual({ ok: true, updated: 3 });
    const archived = await server.request('GET', '/api/leads?status=archived', { key: apiKey });
    expect(archived.body.leads.map((l: { status: string }) => l.status)).toEqual(['contacted', 'contacted', 'contacted', 'contacted']);
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body.used).toBe(0);
  });

  it("counts only the workspace's own leads", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const [their] = await importLeads(server, theirs.apiKey, [{ email: 't@x.test' }]);
    const res = await server.request('PATCH', '/api/leads', { key: mine.apiKey, body: { ids: [their!.id], status: 'qualified' } });
    expect(res.body).toEqual({ ok: true, updated: 0 });
    const check = await server.request('GET', '/api/leads', { key: theirs.apiKey });
    expect(check.body.leads[0].status).toBe('new');
  });

  it.each([
    [{ ids: [], status: 'new' }, 'ids'],
    [{ ids: Array.from({ length: 501 }, () => randomUUID()), status: 'new' }, 'ids'],
    [{ ids: ['nope'], status: 'new' }, 'ids.0'],
    [{ ids: [randomUUID()] }, 'status'],
    [{ ids: [randomUUID()], status: 'hot' }, 'status'],
  ])('answers 400 naming the field (%#)', async (body, field) => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('PATCH', '/api/leads', { key: apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });
});

describe('DELETE /api/leads', () => {
  it('deletes permanently, taking ids from the JSON body', async () => {
    const { apiKey } = await createTestWorkspace();
    const leads = await importLeads(server, apiKey, [{ email: 'a@x.test' }, { email: 'b@x.test' }]);
    const res = await server.request('DELETE', '/api/leads', { key: apiKey, body: { ids: [leads[0]!.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, deleted: 1 });
    const list = await server.request('GET', '/api/leads', { key: apiKey });
    expect(list.body.workspaceTotal).toBe(1);
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body.used).toBe(1);
    // The email can be stored again once deleted.
    expect((await server.request('POST', '/api/leads', { key: apiKey, body: { leads: [{ email: 'a@x.test' }] } })).body.created).toBe(1);
  });

  it("does not delete another workspace's leads", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const [their] = await importLeads(server, theirs.apiKey, [{ email: 't@x.test' }]);
    const res = await server.request('DELETE', '/api/leads', { key: mine.apiKey, body: { ids: [their!.id] } });
    expect(res.body).toEqual({ ok: true, deleted: 0 });
    expect((await server.request('GET', '/api/leads', { key: theirs.apiKey })).body.total).toBe(1);
  });

  it('answers 400 for more than 500 ids or a missing body', async () => {
    const { apiKey } = await createTestWorkspace();
    const many = await server.request('DELETE', '/api/leads', {
      key: apiKey,
      body: { ids: Array.from({ length: 501 }, () => randomUUID()) },
    });
    expect(many.status).toBe(400);
    expect(many.body.field).toBe('ids');
    const none = await server.request('DELETE', '/api/leads', { key: apiKey });
    expect(none.status).toBe(400);
    expect(none.body.field).toBe('ids');
  });
});
