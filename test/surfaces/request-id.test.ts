import { afterEach, describe, expect, it } from 'vitest';
import { Lead } from '../../src/leads/lead.models.ts';
import { setLogLevel, setLogSink } from '../../src/logger.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

afterEach(() => {
  setLogSink(null);
  setLogLevel('silent');
});

describe('request ids', () => {
  it('echoes a sane X-Request-Id on every surface, errors included', async () => {
    const { apiKey } = await createTestWorkspace();
    const calls: [string, string, { key?: string; body?: unknown }?][] = [
      ['GET', '/api/user', { key: apiKey }],
      ['GET', '/api/leads'], // 401
      ['GET', '/api/nothing-here'], // 404
      ['PUT', '/api/leads', { body: {} }], // 405
      ['POST', '/graphql', { key: apiKey, body: { query: '{ leadsCapacity { used } }' } }],
      ['GET', '/trpc/leads.capacity', { key: apiKey }],
      ['GET', '/trpc/leads.capacity'], // 401 on tRPC
      ['GET', '/openapi.json'],
      ['GET', '/openapi.json', { key: apiKey }],
      ['GET', '/docs'],
      ['GET', '/docs/swagger-ui.css'],
      ['GET', '/docs/missing.js'],
      ['GET', '/healthz'],
    ];
    for (const [index, [method, path, options]] of calls.entries()) {
      const requestId = `client-${index}.trace:${path.length}`;
      const res = await server.request(method, path, { ...options, headers: { 'x-request-id': requestId } });
      expect(res.headers.get('x-request-id'), `${method} ${path} (${res.status})`).toBe(requestId);
    }
  });

  it('generates an id when none is given, and replaces one that is not a plain token', async () => {
    const generated = await server.request('GET', '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(uuid);
    const another = await server.request('GET', '/api/nothing-here');
    expect(another.headers.get('x-request-id')).toMatch(uuid);
    expect(another.headers.get('x-request-id')).not.toBe(generated.headers.get('x-request-id'));
    for (const invalid of ['has space', 'quote"d', 'x'.repeat(129), 'semi;colon', '{"json":1}', 'é']) {
      const res = await server.request('GET', '/healthz', { headers: { 'x-request-id': invalid } });
      expect(res.headers.get('x-request-id'), invalid).toMatch(uuid);
    }
    expect((await server.request('GET', '/healthz', { headers: { 'x-request-id': 'x'.repeat(128) } })).headers.get('x-request-id')).toBe(
      'x'.repeat(128),
    );
  });

  it('writes the request id on the log line of a server fault', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    // A record the service cannot describe with its own output schema (as in errors.test.ts).
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
    const lines: Record<string, unknown>[] = [];
    setLogLevel('error');
    setLogSink((line) => lines.push(JSON.parse(line)));

    const rest = await server.request('GET', '/api/leads', { key: apiKey, headers: { 'x-request-id': 'fault-rest-1' } });
    const trpc = await server.request('GET', '/trpc/leads.list?input=%7B%7D', { key: apiKey });
    expect(rest.status).toBe(500);
    expect(rest.headers.get('x-request-id')).toBe('fault-rest-1');
    expect(trpc.status).toBe(500);
    const generatedId = trpc.headers.get('x-request-id');
    expect(generatedId).toMatch(uuid);

    const faults = lines.filter((line) => line.message === 'request failed');
    expect(faults.map((line) => line.requestId)).toEqual(['fault-rest-1', generatedId]);
    expect(faults[0]).toMatchObject({ level: 'error', error: expect.stringContaining('Error') });
  });
});
