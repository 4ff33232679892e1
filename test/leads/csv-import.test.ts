import mongoose from 'mongoose';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';
import { parseCsv } from '../support/csv.ts';
import { importLeads, storeFillerLeads } from '../support/leads.ts';

const server = useApiServer({ IMPORT_MAX_BYTES: '4096' }, { worker: true });

type Import = {
  id: string;
  name: string;
  status: string;
  total_rows: number;
  processed_rows: number;
  created: number;
  updated: number;
  duplicates: number;
  rejected: number;
  errors: Array<{ row: number; column: string | null; message: string }>;
  mapping: Record<string, string>;
  finished_at: string | null;
};

async function upload(key: string, csv: string, query: Record<string, string> = {}) {
  const search = new URLSearchParams(query).toString();
  return server.request('POST', `/api/leads/imports${search ? `?${search}` : ''}`, {
    key,
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
}

/** Polls the import until it ends; answers it and every processed_rows seen on the way. */
async function finished(key: string, id: string): Promise<{ done: Import; seen: number[] }> {
  const seen: number[] = [];
  for (let attempt = 0; attempt < 600; attempt++) {
    const res = await server.request<{ import: Import }>('GET', `/api/leads/imports/${id}`, { key });
    expect(res.status).toBe(200);
    seen.push(res.body.import.processed_rows);
    if (['completed', 'failed'].includes(res.body.import.status)) return { done: res.body.import, seen };
    await sleep(50);
  }
  throw new Error(`import ${id} did not end`);
}

async function importFile(key: string, csv: string, query: Record<string, string> = {}) {
  const res = await upload(key, csv, query);
  expect(res.status).toBe(202);
  expect(res.body.import).toMatchObject({ status: 'queued', processed_rows: 0 });
  return finished(key, res.body.import.id);
}

const leadsOf = async (key: string, query = '') =>
  (await server.request('GET', `/api/leads?limit=500${query}`, { key })).body.leads as Array<Record<string, any>>;

describe('POST /api/leads/imports', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await createTestWorkspace();
  });

  it('reads a semicolon file with a byte-order mark, CRLF and a line break in quotes, matching headers by name', async () => {
    const csv =
      '\uFEFFE-mail Address;First Name;Last Name;Company Name;Job Title;Company Website;LinkedIn URL;Phone;City;Country;Tier\r\n' +
      'ada@acme.test;Ada;Byron;"Acme; Rockets";CTO;https://www.Acme.test/about;https://linkedin.com/in/ada;+49 30 1;Berlin;Germany;A\r\n' +
      'grace@navy.test;Grace;Hopper;Navy;"Rear\r\nAdmiral";navy.test;;;;;B\r\n';
    const { done, seen } = await importFile(workspace.apiKey, csv, { name: 'CRM export' });
    expect(done).toMatchObject({
      name: 'CRM export',
      status: 'completed',
      total_rows: 2,
      processed_rows: 2,
      created: 2,
      duplicates: 0,
      rejected: 0,
      errors: [],
      mapping: {
        'E-mail Address': 'email',
        'First Name': 'full_name',
        'Last Name': 'full_name',
        'Company Name': 'company',
        'Job Title': 'title',
        'Company Website': 'domain',
        'LinkedIn URL': 'linkedin_url',
        Phone: 'phone',
        City: 'location',
        Country: 'location',
        Tier: 'custom.tier',
      },
    });
    expect(done.finished_at).not.toBeNull();
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const leads = await leadsOf(workspace.apiKey);
    expect(leads.find((lead) => lead.email === 'ada@acme.test')).toMatchObject({
      full_name: 'Ada Byron',
      company: 'Acme; Rockets',
      title: 'CTO',
      domain: 'acme.test',
      linkedin_url: 'https://linkedin.com/in/ada',
      phone: '+49 30 1',
      location: 'Berlin, Germany',
      custom: { tier: 'A' },
    });
    expect(leads.find((lead) => lead.email === 'grace@navy.test')).toMatchObject({ title: 'Rear\r\nAdmiral', domain: 'navy.test' });
    const fields = (await server.request('GET', '/api/leads/fields', { key: workspace.apiKey })).body.fields;
    expect(fields).toEqual([expect.objectContaining({ key: 'tier', label: 'Tier', type: 'text', declared: true })]);
    const list = (await server.request('GET', '/api/leads', { key: workspace.apiKey })).body;
    expect(list.campaigns).toEqual([expect.objectContaining({ id: done.id, label: 'CRM export', count: 2 })]);
    const listed = (await server.request('GET', '/api/leads/imports', { key: workspace.apiKey })).body.imports;
    expect(listed[0]).toMatchObject({ id: done.id, status: 'completed' });
  });

  it('takes a tab file with a mapping, rejects bad rows with their column, and serves them as CSV with formulas neutralised', async () => {
    const csv = [
      'Mail\tWho\tNotes\tRating',
      'x1@tab.test\tOne\tignored\t5',
      'not-an-email\t"=HYPERLINK(""http://evil.test"")"\tsecret\t3',
      '\t\t\t',
      'x2@tab.test\tTwo\t\t',
    ].join('\n');
    const mapping = JSON.stringify({ Mail: 'email', Who: 'full_name', Notes: 'ignore', Rating: 'custom.rating' });
    const { done } = await importFile(workspace.apiKey, csv, { mapping });
    expect(done).toMatchObject({ total_rows: 4, processed_rows: 4, created: 2, rejected: 2 });
    expect(done.errors).toEqual([
      { row: 2, column: 'Mail', message: expect.stringContaining('not a valid email') },
      { row: 3, column: null, message: 'the row has no values' },
    ]);
    const stored = (await leadsOf(workspace.apiKey)).find((lead) => lead.email === 'x1@tab.test');
    expect(stored).toMatchObject({ full_name: 'One', custom: { rating: '5' } });
    expect(stored!.custom.notes).toBeUndefined();

    const res = await server.request('GET', `/api/leads/imports/${done.id}/rejected`, { key: workspace.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(res.body as string);
    expect(rows[0]).toEqual(['Mail', 'Who', 'Notes', 'Rating', 'error']);
    expect(rows[1]).toEqual([
      'not-an-email',
      `'=HYPERLINK("http://evil.test")`,
      'secret',
      '3',
      expect.stringMatching(/^Mail: not a valid email/),
    ]);
    expect(rows[2]).toEqual(['', '', '', '', 'the row has no values']);
  });

  it('counts duplicates as POST /api/leads decides them, and with on_duplicate=update fills only empty fields', async () => {
    const own = await createTestWorkspace();
    await importLeads(server, own.apiKey, [
      { email: 'dup@acme.test', full_name: 'Stored Name', title: 'Stored Title' },
      { linkedin_url: 'https://www.linkedin.com/in/someone/', company: 'Kept Co' },
    ]);
    const csv =
      'email,name,title,phone,linkedin,segment\n' +
      'DUP@acme.test,Other Name,Other Title,+1 555,,gold\n' +
      ',Some One,,,http://linkedin.com/in/SOMEONE,silver\n';
    const skipped = await importFile(own.apiKey, csv);
    expect(skipped.done).toMatchObject({ created: 0, duplicates: 2, updated: 0 });
    const untouched = await leadsOf(own.apiKey);
    expect(untouched.find((lead) => lead.email === 'dup@acme.test')).toMatchObject({ phone: null, custom: {} });

    const updated = await importFile(own.apiKey, csv, { on_duplicate: 'update' });
    expect(updated.done).toMatchObject({ created: 0, duplicates: 0, updated: 2 });
    const leads = await leadsOf(own.apiKey);
    expect(leads.find((lead) => lead.email === 'dup@acme.test')).toMatchObject({
      full_name: 'Stored Name',
      title: 'Stored Title',
      phone: '+1 555',
      custom: { segment: 'gold' },
    });
    expect(leads.find((lead) => lead.company === 'Kept Co')).toMatchObject({ full_name: 'Some One', custom: { segment: 'silver' } });
  });

  it("rejects the rows past the plan's lead cap as lead_limit", async () => {
    const own = await createTestWorkspace('free');
    await storeFillerLeads(own.workspaceId, 4998);
    const csv = 'email\n' + Array.from({ length: 5 }, (_, n) => `cap${n}@cap.test`).join('\n');
    const { done } = await importFile(own.apiKey, csv);
    expect(done).toMatchObject({ created: 2, rejected: 3 });
    expect(done.errors.map((error) => [error.row, error.message])).toEqual(
      [3, 4, 5].map((row) => [row, expect.stringMatching(/^lead_limit/)]),
    );
  });

  it.each([
    ['an empty body', ''],
    ['a header without rows', 'email,name\n'],
    ['a quote never closed', 'email,name\n"a@b.test,Ann\n'],
    ['a quote inside an unquoted field', 'email,name\na@b.test,An"n\n'],
  ])('answers 400 naming body for %s', async (_, csv) => {
    const res = await upload(workspace.apiKey, csv);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'body' });
  });

  it('answers 400 for bytes that are not UTF-8', async () => {
    const res = await fetch(`${server.baseUrl}/api/leads/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${workspace.apiKey}`, 'content-type': 'text/csv' },
      body: Buffer.concat([Buffer.from('email,name\nx@y.test,'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('\n')]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'body', error: expect.stringContaining('UTF-8') });
  });

  it.each([
    [{ mapping: '{not json' }, 'mapping'],
    [{ mapping: '{"email":"emial"}' }, 'mapping.email'],
    [{ mapping: '{"Absent":"email"}' }, 'mapping.Absent'],
    [{ on_duplicate: 'merge' }, 'on_duplicate'],
  ])('answers 400 naming the parameter for %j', async (query, field) => {
    const res = await upload(workspace.apiKey, 'email\na@b.test\n', query);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('answers 415 for a body that is not text/csv, and 403 for a read-only key', async () => {
    const json = await server.request('POST', '/api/leads/imports', { key: workspace.apiKey, body: { leads: [] } });
    expect(json.status).toBe(415);
    const readOnly = await upload(await workspace.keyWith('read'), 'email\na@b.test\n');
    expect(readOnly.status).toBe(403);
  });

  it('answers 413 naming IMPORT_MAX_BYTES, declared or streamed, and leaves nothing stored', async () => {
    const big = 'email\n' + Array.from({ length: 400 }, (_, n) => `person${n}@big.test`).join('\n');
    const declared = await upload(workspace.apiKey, big);
    expect(declared.status).toBe(413);
    expect(declared.body.error).toContain('IMPORT_MAX_BYTES');
    const bytes = new TextEncoder().encode(big);
    const streamed = await fetch(`${server.baseUrl}/api/leads/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${workspace.apiKey}`, 'content-type': 'text/csv' },
      body: new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < bytes.length; offset += 1000) controller.enqueue(bytes.slice(offset, offset + 1000));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).error).toContain('IMPORT_MAX_BYTES');
    const db = mongoose.connection.db!;
    const imports = new Set(
      (
        await db
          .collection('lead_imports')
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((doc) => doc._id),
    );
    const chunks = await db
      .collection('lead_import_chunks')
      .find({}, { projection: { importId: 1 } })
      .toArray();
    expect(chunks.filter((chunk) => !imports.has(chunk.importId))).toEqual([]);
  });

  it('answers a repeat with the same Idempotency-Key with the first import, marked replayed', async () => {
    const send = () =>
      server.request('POST', '/api/leads/imports?name=once', {
        key: workspace.apiKey,
        rawBody: 'email\nonce@key.test\n',
        headers: { 'content-type': 'text/csv', 'idempotency-key': 'upload-1' },
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.import.id).toBe(first.body.import.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await finished(workspace.apiKey, first.body.import.id);
  });

  it("answers 404 for another workspace's import and 400 for an id that is none", async () => {
    const listed = (await server.request('GET', '/api/leads/imports', { key: workspace.apiKey })).body.imports;
    const other = await createTestWorkspace();
    for (const path of [`/api/leads/imports/${listed[0].id}`, `/api/leads/imports/${listed[0].id}/rejected`]) {
      const res = await server.request('GET', path, { key: other.apiKey });
      expect(res.status).toBe(404);
    }
    expect((await server.request('GET', '/api/leads/imports/nope', { key: workspace.apiKey })).status).toBe(400);
    expect((await server.request('GET', '/api/leads/imports', { key: other.apiKey })).body.imports).toEqual([]);
  });
});
