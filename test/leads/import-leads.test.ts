import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const leadsOf = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ company: `${prefix} Co ${i}`, email: `${prefix}${i}@example.test` }));

describe('POST /api/leads', () => {
  it("takes a lead's domain from its work email when none is given, never from a free mailbox provider", async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads', {
      key: apiKey,
      body: {
        leads: [
          { email: 'Grace@Hopper-Labs.test' },
          { email: 'grace.private@gmail.com' },
          { email: 'ada@acme.test', domain: 'acme-group.test' },
          { full_name: 'No Email' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.leads.map((lead: { domain: string | null }) => lead.domain)).toEqual([
      'hopper-labs.test',
      null,
      'acme-group.test',
      null,
    ]);

    // An address given later to a lead with no domain fills it in as well.
    const noEmail = res.body.leads[3];
    const patched = await server.request('PATCH', `/api/leads/${noEmail.id}`, {
      key: apiKey,
      body: { field: 'email', value: 'no.email@initech.test' },
    });
    expect(patched.status).toBe(200);
    const read = await server.request('GET', `/api/leads/${noEmail.id}`, { key: apiKey });
    expect(read.body.lead.domain).toBe('initech.test');
  });

  it('stores leads and answers 201 with created, duplicates and the leads', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads', {
      key: apiKey,
      body: {
        name: 'Fintech CTOs',
        leads: [
          { company: 'Acme', full_name: 'Ada Lovelace', email: 'Ada@Acme.test', score: 80, status: 'qualified', custom: { tier: 'A' } },
          { company: 'Globex', linkedin_url: 'https://www.linkedin.com/in/hank/' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(2);
    expect(res.body.duplicates).toBe(0);
    expect(res.body.leads[0]).toMatchObject({
      company: 'Acme',
      full_name: 'Ada Lovelace',
      email: 'Ada@Acme.test',
      score: 80,
      status: 'qualified',
      custom: { tier: 'A' },
      archived_at: null,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(res.body.leads[1]).toMatchObject({ company: 'Globex', status: 'new', email: null, score: null });

    const list = await server.request('GET', '/api/leads', { key: apiKey });
    expect(list.body.total).toBe(2);
    expect(list.body.campaigns).toEqual([{ id: expect.any(String), label: 'Fintech CTOs', count: 2, created_at: expect.any(String) }]);
    expect(list.body.customFields).toEqual([expect.objectContaining({ key: 'tier', declared: false })]);
  });

  it('dedupes by email case-insensitively, then by LinkedIn URL, within the call and against stored leads', async () => {
    const { apiKey } = await createTestWorkspace();
    await server.request('POST', '/api/leads', {
      key: apiKey,
      body: { leads: [{ email: 'jo@acme.test' }, { linkedin_url: 'https://linkedin.com/in/jane' }] },
    });
    const res = await server.request('POST', '/api/leads', {
      key: apiKey,
      body: {
        leads: [
          { email: 'JO@ACME.TEST' },
          { linkedin_url: 'https://www.linkedin.com/in/Jane/' },
          { email: 'new@acme.test' },
          { email: 'New@acme.test' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: 1, duplicates: 3 });
    expect(res.body.leads.map((l: { email: string }) => l.email)).toEqual(['new@acme.test']);
  });

  it('keeps workspaces apart: the same email is new in another workspace', async () => {
    const first = await createTestWorkspace();
    const second = await createTestWorkspace();
    await server.request('POST', '/api/leads', { key: first.apiKey, body: { leads: [{ email: 'shared@x.test' }] } });
    const res = await server.request('POST', '/api/leads', { key: second.apiKey, body: { leads: [{ email: 'shared@x.test' }] } });
    expect(res.body.created).toBe(1);
  });

  it('refuses the whole call with lead_limit when the cap would be exceeded, storing nothing', async () => {
    const { apiKey } = await createTestWorkspace('free');
    for (let batch = 0; batch < 9; batch++) {
      const res = await server.request('POST', '/api/leads', { key: apiKey, body: { leads: leadsOf(500, `b${batch}-`) } });
      expect(res.status).toBe(201);
    }
    const fill = await server.request('POST', '/api/leads', { key: apiKey, body: { leads: leadsOf(499, 'fill-') } });
    expect(fill.body.created).toBe(499);

    const over = await server.request('POST', '/api/leads', { key: apiKey, body: { leads: leadsOf(2, 'over-') } });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: 'lead_limit', used: 4999, limit: 5000, error: expect.any(String) });
    const search = await server.request('GET', '/api/leads?q=over-', { key: apiKey });
    expect(search.body.total).toBe(0);

    // Near the cap, leads already stored are duplicates, not a reason to refuse.
    const exact = await server.request('POST', '/api/leads', {
      key: apiKey,
      body: { leads: [...leadsOf(1, 'fill-'), ...leadsOf(1, 'last-')] },
    });
    expect(exact.status).toBe(201);
    expect(exact.body).toMatchObject({ created: 1, duplicates: 1 });
    const capacity = await server.request('GET', '/api/leads/capacity', { key: apiKey });
    expect(capacity.body).toEqual({ used: 5000, limit: 5000, remaining: 0, tier: 'free' });
  }, 120_000);

  it('lets two concurrent imports past the cap store at most the cap', async () => {
    const { apiKey } = await createTestWorkspace('free');
    for (let batch = 0; batch < 9; batch++) {
      await server.request('POST', '/api/leads', { key: apiKey, body: { leads: leadsOf(500, `c${batch}-`) } });
    }
    const [a, b] = await Promise.all([
      server.request('POST', '/api/leads', { key: apiKey, body: { leads: leadsOf(300, 'race-a-') } }),
      server.request('POST', '/api/leads', { key: apiKey, body: { leads: leadsOf(300, 'race-b-') } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 403]);
    const capacity = await server.request('GET', '/api/leads/capacity', { key: apiKey });
    expect(capacity.body.used).toBe(4800);
    const list = await server.request('GET', '/api/leads?limit=1', { key: apiKey });
    expect(list.body.workspaceTotal).toBe(4800);
  }, 120_000);

  it.each([
    { field: 'leads', body: { leads: [] } },
    { field: 'leads', body: { leads: leadsOf(501, 'x') } },
    { field: 'leads.0.email', body: { leads: [{ email: 'not-an-email' }] } },
    { field: 'leads.0.linkedin_url', body: { leads: [{ linkedin_url: 'nope' }] } },
    { field: 'leads.0.score', body: { leads: [{ score: 101 }] } },
    { field: 'leads.0.status', body: { leads: [{ status: 'hot' }] } },
    { field: 'leads.0.company', body: { leads: [{ company: 'x'.repeat(2001) }] } },
    { field: 'leads.0.custom.a.b', body: { leads: [{ custom: { 'a.b': '1' } }] } },
    { field: 'leads.0.nickname', body: { leads: [{ nickname: 'x' }] } },
    { field: 'leads', body: {} },
  ])('answers 400 naming $field', async ({ body, field }) => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads', { key: apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.field).toBe(field);
    expect(res.body.error).toContain(field);
  });
});
