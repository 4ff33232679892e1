import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();

/** A workspace with one declared column of each type (keys: the type's name + `_col`), and one lead. */
async function typedWorkspace() {
  const workspace = await createTestWorkspace();
  const key = workspace.apiKey;
  for (const type of ['text', 'number', 'boolean', 'date', 'url', 'email']) {
    const res = await server.request('POST', '/api/leads/fields', { key, body: { label: `${type} col`, type } });
    expect(res.status).toBe(201);
  }
  const [lead] = await importLeads(server, key, [{ company: 'Acme', email: 'ada@acme.test' }]);
  const patch = (field: string, value: string | null) => server.request('PATCH', `/api/leads/${lead!.id}`, { key, body: { field, value } });
  const importOne = (custom: Record<string, string | null>) =>
    server.request('POST', '/api/leads', { key, body: { leads: [{ company: 'Globex', custom }] } });
  return { key, lead: lead!, patch, importOne };
}

/** [type, value as sent, value as stored] */
const accepted: Array<[string, string, string]> = [
  ['text', 'anything at all, even 12 or true', 'anything at all, even 12 or true'],
  ['text', '  kept as sent  ', '  kept as sent  '],
  ['number', '12.5', '12.5'],
  ['number', '-3', '-3'],
  ['number', '0', '0'],
  ['number', '12.50', '12.50'],
  ['number', '1.5e3', '1.5e3'],
  ['number', ' 42 ', '42'],
  ['boolean', 'true', 'true'],
  ['boolean', 'false', 'false'],
  ['boolean', 'TRUE', 'true'],
  ['boolean', ' False', 'false'],
  ['date', '2024-02-29', '2024-02-29'],
  ['date', '2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000Z'],
  ['date', '2024-05-01T10:00:00.123+02:00', '2024-05-01T08:00:00.123Z'],
  ['date', '2024-05-01T10:00+02:00', '2024-05-01T08:00:00.000Z'],
  ['url', 'https://acme.test/about?x=1', 'https://acme.test/about?x=1'],
  ['url', 'http://acme.test', 'http://acme.test'],
  ['url', ' https://acme.test/ ', 'https://acme.test/'],
  ['email', 'Ada@Acme.test', 'Ada@Acme.test'],
  ['email', ' ada@acme.test ', 'ada@acme.test'],
];

const refused: Array<[string, string]> = [
  ['number', 'abc'],
  ['number', '12abc'],
  ['number', '1,000'],
  ['number', ''.padEnd(3, ' ')],
  ['number', 'NaN'],
  ['number', 'Infinity'],
  ['number', '1e400'],
  ['number', '0x1f'],
  ['number', '5.'],
  ['boolean', 'yes'],
  ['boolean', '1'],
  ['boolean', 'truthy'],
  ['date', 'tomorrow'],
  ['date', '2023-02-29'],
  ['date', '2024-13-01'],
  ['date', '01/05/2024'],
  ['date', '2024-05-01T10:00:00'],
  ['date', '2024-05-01T25:00:00Z'],
  ['url', 'acme.test'],
  ['url', 'ftp://acme.test/file'],
  ['url', 'https://'],
  ['url', 'javascript:alert(1)'],
  ['email', 'not-an-email'],
  ['email', 'ada@'],
];

describe('custom column types on PATCH /api/leads/{id}', () => {
  it.each(accepted)("stores a %s column's %j as %j", async (type, sent, stored) => {
    const { patch } = await typedWorkspace();
    const res = await patch(`${type}_col`, sent);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.lead.custom).toEqual({ [`${type}_col`]: stored });
  });

  it.each(refused)("refuses a %s column's %j with 400 naming value, storing nothing", async (type, sent) => {
    const { patch, key, lead } = await typedWorkspace();
    const res = await patch(`${type}_col`, sent);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      field: 'value',
      issues: [{ field: 'value', message: expect.stringContaining(type) }],
    });
    expect(res.body.error).toContain('value');
    const stored = await server.request('GET', `/api/leads/${lead.id}`, { key });
    expect(stored.body.lead.custom).toEqual({});
  });

  it('refuses the whole request: a bad value stores neither the status nor the archive flag', async () => {
    const { key, lead } = await typedWorkspace();
    const res = await server.request('PATCH', `/api/leads/${lead.id}`, {
      key,
      body: { field: 'number_col', value: 'abc', status: 'qualified', archived: true },
    });
    expect(res.status).toBe(400);
    const stored = await server.request('GET', `/api/leads/${lead.id}`, { key });
    expect(stored.body.lead).toMatchObject({ status: 'new', archived_at: null, custom: {} });
  });

  it('clears a typed value with an empty string or null', async () => {
    const { patch } = await typedWorkspace();
    expect((await patch('number_col', '7')).body.lead.custom).toEqual({ number_col: '7' });
    expect((await patch('number_col', '')).body.lead.custom).toEqual({});
    await patch('number_col', '8');
    expect((await patch('number_col', null)).body.lead.custom).toEqual({});
  });

  it('keeps undeclared keys free text, also when a declared column has another type', async () => {
    const { patch } = await typedWorkspace();
    const res = await patch('funding', 'abc');
    expect(res.status).toBe(200);
    expect(res.body.lead.custom).toEqual({ funding: 'abc' });
  });

  it('enforces the type once an undeclared key is declared', async () => {
    const { patch, key } = await typedWorkspace();
    expect((await patch('headcount', 'about ten')).status).toBe(200);
    await server.request('POST', '/api/leads/fields', { key, body: { label: 'Headcount', type: 'number' } });
    expect((await patch('headcount', 'about ten')).status).toBe(400);
    expect((await patch('headcount', '10')).body.lead.custom).toEqual({ headcount: '10' });
  });
});

describe('custom column types on POST /api/leads', () => {
  it.each(accepted)("stores a %s column's %j as %j", async (type, sent, stored) => {
    const { importOne } = await typedWorkspace();
    const res = await importOne({ [`${type}_col`]: sent, free: 'x' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.leads[0].custom).toEqual({ [`${type}_col`]: stored, free: 'x' });
  });

  it.each(refused)("refuses a %s column's %j with 400 naming leads.0.custom.<key>", async (type, sent) => {
    const { importOne } = await typedWorkspace();
    const res = await importOne({ [`${type}_col`]: sent });
    const field = `leads.0.custom.${type}_col`;
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field, issues: [{ field, message: expect.stringContaining(type) }] });
    expect(res.body.error).toContain(field);
  });

  it('refuses the whole import, listing every bad value, and stores nothing', async () => {
    const { key } = await typedWorkspace();
    const leads = [
      { email: 'one@x.test', custom: { number_col: '1', boolean_col: 'true' } },
      { email: 'two@x.test', custom: { number_col: 'many', free: 'ok' } },
      { email: 'three@x.test', custom: { url_col: 'https://x.test' } },
      { email: 'four@x.test', custom: { email_col: 'nobody', date_col: 'soon' } },
    ];
    const res = await server.request('POST', '/api/leads', { key, body: { name: 'Typed', leads } });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('leads.1.custom.number_col');
    expect(res.body.issues.map((i: { field: string }) => i.field)).toEqual([
      'leads.1.custom.number_col',
      'leads.3.custom.email_col',
      'leads.3.custom.date_col',
    ]);
    const list = await server.request('GET', '/api/leads', { key });
    expect(list.body.total).toBe(1); // the fixture lead only
    expect(list.body.campaigns.map((c: { label: string }) => c.label)).not.toContain('Typed');
    expect(list.body.customFields.map((f: { key: string }) => f.key)).not.toContain('free');
    expect((await server.request('GET', '/api/leads/capacity', { key })).body.used).toBe(1);
  });

  it('accepts null and empty values in typed columns', async () => {
    const { importOne } = await typedWorkspace();
    const res = await importOne({ number_col: null, date_col: '' });
    expect(res.status).toBe(201);
    expect(res.body.leads[0].custom).toEqual({ number_col: null, date_col: '' });
  });

  it('keeps undeclared keys free text and records them as undeclared', async () => {
    const { importOne, key } = await typedWorkspace();
    const res = await importOne({ anything: 'abc' });
    expect(res.status).toBe(201);
    const fields = await server.request('GET', '/api/leads/fields', { key });
    expect(fields.body.fields.at(-1)).toMatchObject({ key: 'anything', type: 'text', declared: false });
  });
});
