import { describe, expect, it } from 'vitest';
import { Lead } from '../../src/leads/lead.models.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

describe('error responses', () => {
  it('answers malformed JSON with 400 invalid_json', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads', {
      key: apiKey,
      rawBody: '{"leads": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_json', field: 'body' });
  });

  it('answers a non-JSON body with 415 and a JSON array body with 400', async () => {
    const { apiKey } = await createTestWorkspace();
    const text = await server.request('POST', '/api/leads', { key: apiKey, rawBody: 'leads=1', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('unsupported_media_type');
    const array = await server.request('POST', '/api/leads', { key: apiKey, body: [] });
    expect(array.status).toBe(400);
    expect(array.body.field).toBe('body');
  });

  it('answers unknown routes with a JSON 404 and wrong methods with 405', async () => {
    const missing = await server.request('GET', '/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'No route GET /api/nothing-here', code: 'not_found' });
    const wrongMethod = await server.request('PUT', '/api/leads', { body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST, PATCH, DELETE');
    // A fixed path is its own resource, though /api/leads/{id} would also match it.
    const { apiKey } = await createTestWorkspace();
    const onFixedPath = await server.request('PATCH', '/api/leads/capacity', { key: apiKey, body: { status: 'new' } });
    expect(onFixedPath.status).toBe(405);
    expect(onFixedPath.headers.get('allow')).toBe('GET');
    expect((await server.request('GET', '/api/leads/capacity', { key: apiKey })).body).toMatchObject({ used: 0 });
  });

  it('answers a server fault with a bare 500, never a stack or internals', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    // A record the service cannot describe with its own output schema.
    await Lead.collection.insertOne({
      _id: 'corrupt-lead' as never,
      workspaceId,
      brandId: 'b',
      emailKey: '~1',
      linkedinKey: '~1',
      status: 'mystery',
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const res = await server.request('GET', '/api/leads', { key: apiKey });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error', code: 'internal_error' });
    const graphql = await server.request('POST', '/graphql', { key: apiKey, body: { query: '{ leadsList { total } }' } });
    expect(JSON.stringify(graphql.body)).not.toMatch(/mystery|stack|\.ts:/);
    const trpc = await server.request('GET', '/trpc/leads.list?input=%7B%7D', { key: apiKey });
    expect(trpc.status).toBe(500);
    expect(JSON.stringify(trpc.body)).not.toMatch(/mystery|stack|\.ts:/);
  });

  it('rejects bodies over the size cap with 413', async () => {
    const { apiKey } = await createTestWorkspace();
    const res = await server.request('POST', '/api/leads', { key: apiKey, body: { leads: [{ company: 'x'.repeat(1_100_000) }] } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });
});
