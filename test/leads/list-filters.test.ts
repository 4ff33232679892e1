import { beforeAll, describe, expect, it } from 'vitest';
import { fillEmptyLeadFields, markLeadsContacted, markUnsubscribed, recordEmailValidations } from '../../src/leads/index.ts';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { parseCsv } from '../support/csv.ts';
import { importLeads } from '../support/leads.ts';

const server = useApiServer();
const clock = useTestClock();

type Listed = { leads: Array<{ id: string; company: string; updated_at: string }>; total: number; next_cursor: string | null };

describe('GET /api/leads filters', () => {
  let workspace: TestWorkspace;
  const list = async (query: string) => (await server.request<Listed>('GET', `/api/leads${query}`, { key: workspace.apiKey })).body;

  beforeAll(async () => {
    workspace = await createTestWorkspace();
    await server.request('POST', '/api/leads/fields', { key: workspace.apiKey, body: { label: 'Tier', type: 'text' } });
    await server.request('POST', '/api/leads/fields', { key: workspace.apiKey, body: { label: 'Paying', type: 'boolean' } });
    clock.set(new Date('2026-03-01T10:00:00Z'));
    const early = await importLeads(server, workspace.apiKey, [
      { company: 'Alpha', email: 'a@alpha.test', score: 10, custom: { tier: 'A', paying: 'true' } },
      { company: 'Beta', email: 'b@beta.test', score: 55, custom: { tier: 'B' } },
    ]);
    clock.set(new Date('2026-03-05T10:00:00Z'));
    await importLeads(server, workspace.apiKey, [
      { company: 'Gamma', score: 90, custom: { tier: 'A' } },
      { company: 'Delta', email: 'd@delta.test', custom: { paying: 'false' } },
    ]);
    await recordEmailValidations(workspace.workspaceId, [
      {
        lead: { id: early[0]!.id, email: 'a@alpha.test' },
        validation: {
          email_status: 'valid',
          email_provider: 'other',
          email_is_role: false,
          email_is_free: false,
          email_validated_at: new Date(),
        },
      },
      {
        lead: { id: early[1]!.id, email: 'b@beta.test' },
        validation: {
          email_status: 'accept_all',
          email_provider: null,
          email_is_role: false,
          email_is_free: false,
          email_validated_at: new Date(),
        },
      },
    ]);
  });

  it.each([
    ['?score_min=50', ['Gamma', 'Beta']],
    ['?score_max=55', ['Beta', 'Alpha']],
    ['?score_min=20&score_max=60', ['Beta']],
    ['?email_status=valid', ['Alpha']],
    ['?email_status=valid,accept_all', ['Beta', 'Alpha']],
    ['?has_email=true', ['Delta', 'Beta', 'Alpha']],
    ['?has_email=false', ['Gamma']],
    ['?created_after=2026-03-02T00:00:00Z', ['Delta', 'Gamma']],
    ['?created_before=2026-03-02T00:00:00%2B00:00', ['Beta', 'Alpha']],
    ['?custom.tier=A', ['Gamma', 'Alpha']],
    ['?custom.tier=A&has_email=true', ['Alpha']],
    ['?custom.paying=TRUE', ['Alpha']],
    ['?custom.paying=false', ['Delta']],
  ])('narrows %s', async (query, expected) => {
    const body = await list(query);
    expect(body.leads.map((lead) => lead.company)).toEqual(expected);
    expect(body.total).toBe(expected.length);
  });

  it('applies the same filters to the export', async () => {
    const res = await server.request('GET', '/api/leads/export?custom.tier=A&score_min=50', { key: workspace.apiKey });
    expect(res.status).toBe(200);
    const rows = parseCsv(res.body as string);
    expect(rows.slice(1).map((row) => row[rows[0]!.indexOf('company')])).toEqual(['Gamma']);
  });

  it.each([
    ['?score_min=101', 'score_min'],
    ['?score_max=abc', 'score_max'],
    ['?email_status=valid,great', 'email_status'],
    ['?has_email=maybe', 'has_email'],
    ['?created_after=yesterday', 'created_after'],
    ['?created_before=2026-13-01T00:00:00Z', 'created_before'],
    ['?updated_after=now', 'updated_after'],
    ['?custom.nope=1', 'custom.nope'],
    ['?custom.paying=perhaps', 'custom.paying'],
    ['?cursor=abc', 'cursor'],
  ])('answers 400 naming the parameter for %s', async (query, field) => {
    // The export has no paging, so no cursor.
    for (const path of field === 'cursor' ? ['/api/leads'] : ['/api/leads', '/api/leads/export']) {
      const res = await server.request('GET', `${path}${query}`, { key: workspace.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.field).toMatch(new RegExp(`^${field.replace('.', '\\.')}(\\.\\d+)?$`));
    }
  });
});

describe('GET /api/leads sync by change', () => {
  let workspace: TestWorkspace;
  const list = async (query: string) => (await server.request<Listed>('GET', `/api/leads${query}`, { key: workspace.apiKey })).body;

  beforeAll(async () => {
    workspace = await createTestWorkspace();
    clock.set(new Date('2026-04-01T00:00:00Z'));
    await importLeads(
      server,
      workspace.apiKey,
      Array.from({ length: 7 }, (_, n) => ({ company: `Company ${n}`, email: `p${n}@c${n}.test`, ...(n === 3 && { title: undefined }) })),
    );
  });

  /** Every page from the first, by cursor: the companies in order. */
  async function pageThrough(query: string, limit: number) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: Listed = await list(`${query}${query ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.leads.map((lead) => lead.company));
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor && pages < 20);
    return { seen, pages };
  }

  it('pages every lead once by cursor, newest first, next_cursor null on the last page', async () => {
    const { seen, pages } = await pageThrough('', 3);
    expect(seen).toEqual(['Company 6', 'Company 5', 'Company 4', 'Company 3', 'Company 2', 'Company 1', 'Company 0']);
    expect(pages).toBe(3);
    expect((await list('?limit=7')).next_cursor).toBeNull();
  });

  it('keeps offset paging', async () => {
    expect((await list('?limit=2&offset=5')).leads.map((lead) => lead.company)).toEqual(['Company 1', 'Company 0']);
    const first = await list('?limit=2');
    const res = await server.request('GET', `/api/leads?limit=2&offset=2&cursor=${first.next_cursor}`, { key: workspace.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('offset');
  });

  it('lists the leads each writer changed after a time, oldest change first, with updated_at moved', async () => {
    const all = (await list('?limit=7')).leads;
    const byCompany = new Map(all.map((lead) => [lead.company, lead]));
    const id = (n: number) => byCompany.get(`Company ${n}`)!.id;
    const before = '2026-04-02T00:00:00.000Z';
    expect((await list(`?updated_after=${before}`)).total).toBe(0);

    // One writer after another, a minute apart: the API's PATCHes, outreach's marks, validation and enrichment.
    const writes: Array<[number, () => Promise<unknown>]> = [
      [5, () => server.request('PATCH', `/api/leads/${id(5)}`, { key: workspace.apiKey, body: { score: 40 } })],
      [1, () => server.request('PATCH', '/api/leads', { key: workspace.apiKey, body: { ids: [id(1)], status: 'qualified' } })],
      [2, () => markLeadsContacted([{ id: id(2) }])],
      [6, () => markUnsubscribed(id(6), { source: 'unsubscribe_link' })],
      [
        0,
        () =>
          recordEmailValidations(workspace.workspaceId, [
            {
              lead: { id: id(0), email: 'p0@c0.test' },
              validation: {
                email_status: 'valid',
                email_provider: null,
                email_is_role: false,
                email_is_free: false,
                email_validated_at: new Date(),
              },
            },
          ]),
      ],
      [3, () => fillEmptyLeadFields(workspace.workspaceId, id(3), { title: 'CTO' }, {})],
    ];
    let at = Date.parse('2026-04-03T00:00:00Z');
    clock.freeze();
    for (const [, write] of writes) {
      clock.set((at += 60_000));
      await write();
    }
    const changed = await list(`?updated_after=${before}`);
    expect(changed.leads.map((lead) => lead.company)).toEqual(writes.map(([n]) => `Company ${n}`));
    expect(changed.leads.map((lead) => lead.updated_at)).toEqual(
      writes.map((_, index) => new Date(Date.parse('2026-04-03T00:00:00Z') + (index + 1) * 60_000).toISOString()),
    );
    // Paged by cursor in the same order, each once.
    const { seen } = await pageThrough(`?updated_after=${before}`, 4);
    expect(seen).toEqual(writes.map(([n]) => `Company ${n}`));
    // Changes after the third write only.
    const later = await list(`?updated_after=${new Date(Date.parse('2026-04-03T00:00:00Z') + 3 * 60_000).toISOString()}`);
    expect(later.leads.map((lead) => lead.company)).toEqual(writes.slice(3).map(([n]) => `Company ${n}`));
  });

  it('refuses a cursor of the other order (400 naming cursor)', async () => {
    const first = await list('?limit=2');
    const res = await server.request('GET', `/api/leads?limit=2&updated_after=2026-01-01T00:00:00Z&cursor=${first.next_cursor}`, {
      key: workspace.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('cursor');
  });
});
