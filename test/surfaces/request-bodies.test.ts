import { describe, expect, it } from 'vitest';
import { Lead } from '../../src/leads/lead.models.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { rawExchange, type RawResponse } from '../support/raw-http.ts';

/** The one body reader behind every surface: its size limit, and its answer to what a body starts with. */
const maxBodyBytes = 4096;
const server = useApiServer({ MAX_BODY_BYTES: String(maxBodyBytes) });

/** Each surface's path for a POST carrying leads to import, and where its answer says the error code. */
const surfaces = [
  { name: 'REST', path: '/api/leads', code: (body: any) => body.code },
  { name: 'GraphQL', path: '/graphql', code: (body: any) => body.errors?.[0]?.extensions?.code },
  { name: 'tRPC', path: '/trpc/leads.import', code: (body: any) => body.error?.data?.code },
];

const head = (path: string, framing: string) =>
  `POST ${path} HTTP/1.1\r\nHost: api.test\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
const start = `{"leads":[{"company":"${'x'.repeat(100)}`;

/** A chunked body that never ends: 1 KB chunks, sent until the server answers (at most 64 KB). */
function* chunkedForever(path: string) {
  yield head(path, 'Transfer-Encoding: chunked');
  yield `${start.length.toString(16)}\r\n${start}\r\n`;
  for (let i = 0; i < 64; i++) yield `400\r\n${'y'.repeat(1024)}\r\n`;
}

const expectRefused = (res: RawResponse, code: (body: unknown) => unknown) => {
  expect(res.status).toBe(413);
  expect(res.headers.connection).toBe('close');
  expect(code(JSON.parse(res.body))).toBe('payload_too_large');
};

describe('a body over MAX_BODY_BYTES', () => {
  for (const { name, path, code } of surfaces) {
    it(`is 413 on ${name} as soon as a larger length is declared, without a key, and the connection closes`, async () => {
      // A billion bytes declared and a hundred sent: the answer cannot wait for the rest.
      expectRefused(await rawExchange(server.baseUrl, [head(path, 'Content-Length: 1000000000'), start]), code);
    });

    it(`is 413 on ${name} once a chunked body passes the limit, without a key, and the connection closes`, async () => {
      expectRefused(await rawExchange(server.baseUrl, chunkedForever(path)), code);
    });
  }

  it('is read as usual just under the limit', async () => {
    const body = JSON.stringify({ query: `{ leadsCapacity { used } } # ${'z'.repeat(maxBodyBytes - 100)}` });
    expect(Buffer.byteLength(body)).toBeLessThan(maxBodyBytes);
    const res = await server.request('POST', '/graphql', { rawBody: body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body.errors[0].extensions.code).toBe('unauthorized');
  });
});

describe('what a JSON body starts with', () => {
  const bom = '\uFEFF';
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const mcpCall = (lead: Record<string, string>) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'leads_import', arguments: { leads: [lead] } },
  });

  it('reads a JSON body after a byte-order mark on every surface alike', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const headers = { 'content-type': 'application/json' };
    const post = (path: string, body: unknown, extra: Record<string, string> = headers) =>
      server.request('POST', path, { key: apiKey, rawBody: bom + JSON.stringify(body), headers: extra });

    const rest = await post('/api/leads', { leads: [{ email: 'bom-rest@x.test' }] });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    const trpc = await post('/trpc/leads.import', { leads: [{ email: 'bom-trpc@x.test' }] });
    expect(trpc.status, JSON.stringify(trpc.body)).toBe(200);
    const graphql = await post('/graphql', { query: 'mutation { leadsImport(leads: [{ email: "bom-graphql@x.test" }]) { created } }' });
    expect(graphql.body).toEqual({ data: { leadsImport: { created: 1 } } });
    const mcp = await post('/mcp', mcpCall({ email: 'bom-mcp@x.test' }), mcpHeaders);
    expect(mcp.status, JSON.stringify(mcp.body)).toBe(200);
    expect(mcp.body.result.isError).toBeFalsy();

    const stored = await Lead.find({ workspaceId }, { email: 1 }).lean();
    expect(stored.map((lead) => lead.email).sort()).toEqual(['bom-graphql@x.test', 'bom-mcp@x.test', 'bom-rest@x.test', 'bom-trpc@x.test']);
  });

  it('refuses a body that is not UTF-8 with 400 invalid_json on every surface alike, storing nothing', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    // "café" in Latin-1: the é is a byte UTF-8 never has alone.
    const latin1 = (body: unknown) => Buffer.from(JSON.stringify(body).replace('cafe', 'caf\u00e9'), 'latin1');
    const post = async (path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, ...headers },
        body: latin1(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const lead = { email: 'latin1@x.test', company: 'cafe' };

    const rest = await post('/api/leads', { leads: [lead] });
    expect(rest).toMatchObject({ status: 400, body: { code: 'invalid_json', field: 'body' } });
    const trpc = await post('/trpc/leads.import', { leads: [lead] });
    expect(trpc).toMatchObject({ status: 400, body: { error: { data: { code: 'invalid_json', field: 'body' } } } });
    const graphql = await post('/graphql', {
      query: 'mutation { leadsImport(leads: [{ email: "latin1@x.test", company: "cafe" }]) { created } }',
    });
    expect(graphql).toMatchObject({ status: 400, body: { errors: [{ extensions: { code: 'invalid_json', field: 'body' } }] } });
    const mcp = await post('/mcp', mcpCall(lead), mcpHeaders);
    expect(mcp).toMatchObject({ status: 400, body: { code: 'invalid_json', field: 'body' } });

    expect(await Lead.countDocuments({ workspaceId })).toBe(0);
  });
});
