import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { isSuppressed, suppressAddress, suppressionId } from '../../src/outreach/suppressions/suppressions.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { parseCsv } from '../support/csv.ts';

const server = useApiServer();
const clock = useTestClock();
const path = '/api/outreach/suppressions';

const add = async (key: string, entries: string[], reason?: string) => {
  const res = await server.request('POST', path, { key, body: { entries, ...(reason && { reason }) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { added: number; existing: number };
};
const list = async (key: string, query = '') => {
  const res = await server.request('GET', `${path}${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { suppressions: Array<Record<string, string | null>>; total: number };
};
const entriesOf = (body: { suppressions: Array<Record<string, string | null>> }) => body.suppressions.map((s) => s.email ?? `@${s.domain}`);

describe('the do-not-contact list', () => {
  it('adds entries and lists them newest first, lower-cased, with their reason and source', async () => {
    const { apiKey } = await createTestWorkspace();
    expect(await add(apiKey, ['Ada@Acme.TEST', '@Spam.Test'], 'complaint')).toEqual({ added: 2, existing: 0 });
    clock.advance(1000);
    expect(await add(apiKey, ['bob@beta.test'])).toEqual({ added: 1, existing: 0 });
    const listed = await list(apiKey);
    expect(listed.total).toBe(3);
    expect(listed.suppressions[0]).toEqual({
      id: expect.any(String),
      email: 'bob@beta.test',
      domain: 'beta.test',
      reason: 'manual',
      source: 'api',
      created_at: expect.any(String),
    });
    // One call stores its entries at one instant; a whole-domain entry has no email.
    const byDomain = Object.fromEntries(listed.suppressions.slice(1).map((s) => [s.domain, [s.email, s.reason]]));
    expect(byDomain).toEqual({ 'acme.test': ['ada@acme.test', 'complaint'], 'spam.test': [null, 'complaint'] });
  });

  it('counts entries already listed, in any case, as existing and keeps their reason', async () => {
    const { apiKey } = await createTestWorkspace();
    await add(apiKey, ['ada@acme.test'], 'unsubscribe');
    expect(await add(apiKey, ['ADA@acme.test', 'new@acme.test', 'New@Acme.test'], 'manual')).toEqual({ added: 1, existing: 2 });
    const listed = await list(apiKey);
    expect(listed.total).toBe(2);
    expect(listed.suppressions.find((s) => s.email === 'ada@acme.test')!.reason).toBe('unsubscribe');
  });

  it('searches with q and pages with limit and offset, total counting every match', async () => {
    const { apiKey } = await createTestWorkspace();
    for (let i = 0; i < 5; i++) {
      await add(apiKey, [`person${i}@acme.test`, `other${i}@beta.test`]);
      clock.advance(1000);
    }
    const acme = await list(apiKey, '?q=ACME&limit=2');
    expect(acme.total).toBe(5);
    expect(entriesOf(acme)).toEqual(['person4@acme.test', 'person3@acme.test']);
    expect(entriesOf(await list(apiKey, '?q=acme&limit=2&offset=4'))).toEqual(['person0@acme.test']);
    expect((await list(apiKey, '?limit=3')).total).toBe(10);
    expect((await list(apiKey, '?q=nobody')).total).toBe(0);
    // Regular-expression characters are searched as text.
    expect((await list(apiKey, '?q=.*')).total).toBe(0);
  });

  it('covers every address of a domain entry, in any case, workspace-wide and only there', async () => {
    const workspace = await createTestWorkspace();
    const other = await createTestWorkspace();
    await add(workspace.apiKey, ['@Whole-Domain.test', 'one@elsewhere.test'], 'hard_bounce');
    expect(await isSuppressed(workspace.workspaceId, 'Anyone@WHOLE-domain.test')).toMatchObject({ reason: 'hard_bounce' });
    expect(await isSuppressed(workspace.workspaceId, 'ONE@elsewhere.test')).toMatchObject({ reason: 'hard_bounce' });
    expect(await isSuppressed(workspace.workspaceId, 'two@elsewhere.test')).toBeNull();
    expect(await isSuppressed(workspace.workspaceId, 'x@sub.whole-domain.test')).toBeNull();
    expect(await isSuppressed(other.workspaceId, 'anyone@whole-domain.test')).toBeNull();
  });

  it("checks an address with two reads by primary key: its own entry's id and its domain's", async () => {
    const { workspaceId } = await createTestWorkspace();
    const reads: unknown[] = [];
    mongoose.set('debug', (collection: string, method: string, filter: unknown) => reads.push({ collection, method, filter }));
    try {
      expect(await isSuppressed(workspaceId, 'Ada@Acme.test')).toBeNull();
    } finally {
      mongoose.set('debug', false);
    }
    expect(reads).toEqual([
      { collection: 'outreach_suppressions', method: 'findOne', filter: { _id: suppressionId(workspaceId, 'ada@acme.test') } },
      { collection: 'outreach_suppressions', method: 'findOne', filter: { _id: suppressionId(workspaceId, '@acme.test') } },
    ]);
  });

  it('keeps the ids of entries as they were made (stored entries are found by them), whatever was computed before', () => {
    const ids = () => [
      suppressionId('workspace-1', 'ada@acme.test'),
      suppressionId('workspace-1', '@acme.test'),
      suppressionId('workspace-1', 'zoë@bücher.test'),
    ];
    const expected = [
      '44d35838-026b-5989-96e2-5f2f2ac62874',
      '8e02fee3-cb0c-5e1d-99c6-e5028c0867b1',
      '3e145556-05e2-5069-9855-349af3baf1ea',
    ];
    expect(ids()).toEqual(expected);
    expect(ids()).toEqual(expected);
    expect(suppressionId('workspace-2', 'ada@acme.test')).not.toBe(expected[0]);
  });

  it('suppresses one address for the engine, idempotently, with its source', async () => {
    const { workspaceId, apiKey } = await createTestWorkspace();
    expect(await suppressAddress(workspaceId, 'Ada@Acme.test', 'unsubscribe', 'unsubscribe_link')).toEqual({ added: true });
    expect(await suppressAddress(workspaceId, 'ada@acme.test', 'hard_bounce', 'smtp_rejection')).toEqual({ added: false });
    expect(await isSuppressed(workspaceId, 'ada@ACME.test')).toMatchObject({ reason: 'unsubscribe' });
    const [entry] = (await list(apiKey)).suppressions;
    expect(entry).toMatchObject({ email: 'ada@acme.test', reason: 'unsubscribe', source: 'unsubscribe_link' });
    await expect(suppressAddress(workspaceId, 'not an address', 'manual', 'api')).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it("removes entries by id and by entry, leaving other workspaces' alone", async () => {
    const workspace = await createTestWorkspace();
    const other = await createTestWorkspace();
    await add(workspace.apiKey, ['a@x.test', 'b@x.test', '@y.test', 'c@x.test']);
    await add(other.apiKey, ['a@x.test']);
    const ids = Object.fromEntries((await list(workspace.apiKey)).suppressions.map((s) => [s.email ?? `@${s.domain}`, s.id!]));
    const theirs = (await list(other.apiKey)).suppressions[0]!.id!;

    const byId = await server.request('DELETE', path, { key: workspace.apiKey, body: { ids: [ids['a@x.test'], theirs] } });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ deleted: 1 });
    const byEntry = await server.request('DELETE', path, {
      key: workspace.apiKey,
      body: { emails: ['B@X.test', '@Y.test', 'never@x.test'] },
    });
    expect(byEntry.body).toEqual({ deleted: 2 });
    expect(entriesOf(await list(workspace.apiKey))).toEqual(['c@x.test']);
    expect((await list(other.apiKey)).total).toBe(1);
    expect(await isSuppressed(workspace.workspaceId, 'someone@y.test')).toBeNull();
  });

  it('answers 400 naming the field', async () => {
    const { apiKey } = await createTestWorkspace();
    const post = (body: unknown) => server.request('POST', path, { key: apiKey, body });
    const bad = await post({ entries: ['ok@x.test', 'a@b.test', 'not-an-address'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'entries.2' });
    expect((await post({ entries: ['ok@x.test', '@'] })).body.field).toBe('entries.1');
    expect((await post({ entries: ['@no-dot'] })).body.field).toBe('entries.0');
    expect((await post({ entries: [] })).body.field).toBe('entries');
    expect((await post({ entries: Array.from({ length: 1001 }, (_, i) => `p${i}@x.test`) })).body.field).toBe('entries');
    expect((await post({ entries: ['a@x.test'], reason: 'bored' })).body.field).toBe('reason');
    const remove = (body: unknown) => server.request('DELETE', path, { key: apiKey, body });
    expect((await remove({})).body.field).toBe('ids');
    expect((await remove({ ids: [], emails: ['a@x.test'] })).body.field).toBe('ids');
    expect((await remove({ emails: ['a@x.test', 'nope'] })).body.field).toBe('emails.1');
    expect((await server.request('GET', `${path}?limit=501`, { key: apiKey })).body.field).toBe('limit');
    expect((await server.request('GET', `${path}?format=xml`, { key: apiKey })).body.field).toBe('format');
  });

  it('needs read to list and write to change', async () => {
    const workspace = await createTestWorkspace();
    const reader = await workspace.keyWith('read');
    const writer = await workspace.keyWith('write');
    expect((await server.request('GET', path)).status).toBe(401);
    expect((await server.request('GET', path, { key: writer })).body).toMatchObject({ code: 'missing_permission', permission: 'read' });
    expect((await server.request('POST', path, { key: reader, body: { entries: ['a@x.test'] } })).body).toMatchObject({
      code: 'missing_permission',
      permission: 'write',
    });
    expect((await server.request('DELETE', path, { key: reader, body: { ids: [crypto.randomUUID()] } })).status).toBe(403);
    await add(writer, ['a@x.test']);
    expect((await list(reader)).total).toBe(1);
  });
});

describe('the CSV download', () => {
  const download = (query: string, key?: string) =>
    fetch(`${server.baseUrl}${path}?${query}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

  it('streams the whole list, more rows than a page holds, as an attachment a CSV parser reads back', async () => {
    const { apiKey } = await createTestWorkspace();
    await add(
      apiKey,
      Array.from({ length: 620 }, (_, i) => `person${i}@acme.test`),
    );
    clock.advance(1000);
    await add(apiKey, ['@whole.test'], 'complaint');
    const res = await download('format=csv', apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="suppressions-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('ratelimit-limit')).toBeTruthy();
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual(['id', 'email', 'domain', 'reason', 'source', 'created_at']);
    expect(rows).toHaveLength(621);
    expect(rows[0]).toEqual([expect.any(String), '', 'whole.test', 'complaint', 'api', expect.stringMatching(/^\d{4}-.*Z$/)]);
    expect(new Set(rows.slice(1).map((row) => row[1])).size).toBe(620);
    // The same rows, in the same order, as the JSON pages.
    const pages = [...(await list(apiKey, '?limit=500')).suppressions, ...(await list(apiKey, '?limit=500&offset=500')).suppressions];
    expect(rows.map((row) => row[0])).toEqual(pages.map((s) => s.id));
  });

  it('filters with q, and answers an empty list with the header alone', async () => {
    const { apiKey } = await createTestWorkspace();
    expect(parseCsv(await (await download('format=csv', apiKey)).text())).toEqual([
      ['id', 'email', 'domain', 'reason', 'source', 'created_at'],
    ]);
    await add(apiKey, ['a@acme.test', 'b@beta.test']);
    const rows = parseCsv(await (await download('format=csv&q=BETA', apiKey)).text());
    expect(rows.slice(1).map((row) => row[1])).toEqual(['b@beta.test']);
  });

  it('admits and refuses as the list does, with the same error bodies', async () => {
    const workspace = await createTestWorkspace();
    const unauthenticated = await download('format=csv');
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ code: 'unauthorized' });
    const refused = await download('format=csv', await workspace.keyWith('write'));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'missing_permission', permission: 'read' });
    const invalid = await download(`format=csv&q=${'x'.repeat(321)}`, workspace.apiKey);
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'validation_failed', field: 'q' });
  });

  it('is a REST download: GraphQL answers 400 naming format, and documents it in /openapi.json', async () => {
    const { apiKey } = await createTestWorkspace();
    const graphql = await server.request('POST', '/graphql', {
      key: apiKey,
      body: { query: '{ outreachSuppressionsList(format: csv) { total } }' },
    });
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', field: 'format' });
    const document = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const listing = document.paths[path].get;
    expect(Object.keys(listing.responses['200'].content)).toEqual(['application/json', 'text/csv']);
    expect(listing.parameters.map((p: { name: string }) => p.name)).toContain('format');
  });
});
