import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

describe('custom columns', () => {
  it('declares a column with a key derived from the label, then returns it unchanged', async () => {
    const { apiKey } = await createTestWorkspace();
    const body = { label: 'Annual Revenue ($)', type: 'number', description: 'Last fiscal year', auto_research: true };
    const created = await server.request('POST', '/api/leads/fields', { key: apiKey, body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      created: true,
      field: {
        key: 'annual_revenue',
        label: 'Annual Revenue ($)',
        type: 'number',
        description: 'Last fiscal year',
        auto_research: true,
        declared: true,
      },
    });
    const again = await server.request('POST', '/api/leads/fields', { key: apiKey, body: { label: 'annual revenue', type: 'text' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ created: false, field: created.body.field });
  });

  it('lists columns in display order, declared and undeclared', async () => {
    const { apiKey } = await createTestWorkspace();
    await server.request('POST', '/api/leads/fields', { key: apiKey, body: { label: 'Tech stack' } });
    const [lead] = (await server.request('POST', '/api/leads', { key: apiKey, body: { leads: [{ email: 'a@x.test' }] } })).body.leads;
    await server.request('PATCH', `/api/leads/${lead.id}`, { key: apiKey, body: { field: 'hiring', value: 'yes' } });
    await server.request('POST', '/api/leads/fields', { key: apiKey, body: { label: 'Email' } });
    const res = await server.request('GET', '/api/leads/fields', { key: apiKey });
    expect(res.body.fields.map((f: { key: string; declared: boolean }) => [f.key, f.declared])).toEqual([
      ['tech_stack', true],
      ['hiring', false],
      ['custom_email', true],
    ]);
  });

  it('declares a key that was written undeclared', async () => {
    const { apiKey } = await createTestWorkspace();
    const [lead] = (
      await server.request('POST', '/api/leads', { key: apiKey, body: { leads: [{ email: 'a@x.test', custom: { hiring: 'yes' } }] } })
    ).body.leads;
    expect(lead.custom).toEqual({ hiring: 'yes' });
    const res = await server.request('POST', '/api/leads/fields', { key: apiKey, body: { label: 'Hiring', description: 'Open roles' } });
    expect(res.body).toMatchObject({ created: true, field: { key: 'hiring', declared: true, description: 'Open roles' } });
  });

  it.each([
    [{}, 'label'],
    [{ label: '' }, 'label'],
    [{ label: '!!!' }, 'label'],
    [{ label: 'x'.repeat(65) }, 'label'],
    [{ label: 'Size', type: 'currency' }, 'type'],
    [{ label: 'Size', auto_research: 'yes' }, 'auto_research'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads/fields', { key: apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      field,
      issues: [{ field, message: expect.stringMatching(new RegExp(`^${field}: `)) }],
    });
  });
});

describe('research profiles', () => {
  const criteria = {
    description: 'Seed-stage fintechs in Berlin',
    count: 50,
    locations: ['Berlin'],
    industries: ['Fintech'],
    company_size: '11-50',
    titles: ['CTO'],
    keywords: ['payments'],
    exclusions: ['agencies'],
    required_fields: ['email'],
    extra_columns: [{ name: 'Funding', description: 'Last round' }],
    sources: ['linkedin'],
    notes: 'B2B only',
  };

  it('stores a profile without running it, updates it in place by id, and lists it', async () => {
    const { apiKey } = await createTestWorkspace();
    const created = await server.request('POST', '/api/leads/research-profiles', {
      key: apiKey,
      body: { name: 'Berlin fintech', criteria },
    });
    expect(created.status).toBe(200);
    expect(created.body.profile).toEqual({
      id: expect.any(String),
      name: 'Berlin fintech',
      kind: 'icp',
      criteria,
      run_count: 0,
      last_run_at: null,
      created_at: expect.any(String),
    });
    const id = created.body.profile.id;
    const updated = await server.request('POST', '/api/leads/research-profiles', {
      key: apiKey,
      body: { id, name: 'Berlin fintech v2', criteria: { description: 'Series A' } },
    });
    expect(updated.body.profile).toMatchObject({ id, name: 'Berlin fintech v2', criteria: { description: 'Series A' } });
    const list = await server.request('GET', '/api/leads/research-profiles', { key: apiKey });
    expect(list.body.profiles).toHaveLength(1);
    expect(list.body.profiles[0].name).toBe('Berlin fintech v2');
  });

  it("answers 404 when updating another workspace's profile", async () => {
    const owner = await createTestWorkspace();
    const other = await createTestWorkspace();
    const created = await server.request('POST', '/api/leads/research-profiles', {
      key: owner.apiKey,
      body: { name: 'Mine', criteria: {} },
    });
    const res = await server.request('POST', '/api/leads/research-profiles', {
      key: other.apiKey,
      body: { id: created.body.profile.id, name: 'Stolen', criteria: {} },
    });
    expect(res.status).toBe(404);
    expect((await server.request('GET', '/api/leads/research-profiles', { key: other.apiKey })).body.profiles).toEqual([]);
  });

  it.each([
    [{ criteria: {} }, 'name'],
    [{ name: 'x' }, 'criteria'],
    [{ name: 'x', criteria: { count: 'many' } }, 'criteria.count'],
    [{ name: 'x', criteria: { colour: 'red' } }, 'criteria.colour'],
    [{ name: 'x', criteria: {}, id: 'abc' }, 'id'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads/research-profiles', { key: apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });
});

describe('capacity and validation jobs', () => {
  it('reports capacity by plan', async () => {
    const { apiKey } = await createTestWorkspace('pro');
    await server.request('POST', '/api/leads', { key: apiKey, body: { leads: [{ email: 'a@x.test' }, { email: 'b@x.test' }] } });
    const res = await server.request('GET', '/api/leads/capacity', { key: apiKey });
    expect(res.body).toEqual({ used: 2, limit: 100000, remaining: 99998, tier: 'pro' });
  });

  it('lists validation jobs (none yet)', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('GET', '/api/leads/validate', { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jobs: [] });
  });
});
