import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { contractFor, fetchContract, type OpenApiDocument } from './openapi-contract.ts';

// Every request below goes through server.request, so its response is also held to the document by the hook.
const server = useApiServer({ RATE_LIMIT_PER_MINUTE: '40', MAX_BODY_BYTES: '4096' });

let document: OpenApiDocument;
beforeAll(async () => {
  document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
});

const json = 'application/json; charset=utf-8';
const operations = () =>
  Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operation: operation as { responses: Record<string, unknown>; 'x-permission'?: string },
    })),
  );
/** The path with each parameter filled: an id no workspace has, or a slug no endpoint has. */
const concrete = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'slug' ? 'no-such-endpoint' : randomUUID()));
const documents = (operation: { responses: Record<string, unknown> }, status: number) => String(status) in operation.responses;

describe('the OpenAPI contract check', () => {
  it('holds a response to the documented status and schema of its path and method', async () => {
    const contract = contractFor(JSON.stringify(document));
    const capacity = (await server.request('GET', '/api/leads/capacity', { key: (await createTestWorkspace()).apiKey })).body;
    // The literal path wins over /api/leads/{id}.
    expect(contract.check('GET', '/api/leads/capacity', 200, capacity, json)).toBeNull();
    expect(contract.check('GET', '/api/leads/capacity', 200, { ...capacity, used: 'many' }, json)).toContain(
      'does not match paths["/api/leads/capacity"].get.responses["200"]: /used must be integer',
    );
    expect(contract.check('GET', '/api/leads?q=acme', 200, { leads: 'none' }, json)).toContain('paths["/api/leads"].get.responses["200"]');
    expect(contract.check('GET', '/api/leads', 409, { error: 'x', code: 'conflict' }, json)).toContain(
      'GET /api/leads → 409, which paths["/api/leads"].get does not document',
    );
    // An error body: one of the codes documented for that status, and no field the Error schema does not describe.
    const scraper = `/api/scrapers/${randomUUID()}`;
    expect(contract.check('GET', scraper, 404, { error: 'Scraper not found', code: 'not_found' }, json)).toBeNull();
    expect(contract.check('GET', scraper, 404, { error: 'x', code: 'conflict' }, json)).toContain(
      '/code must be equal to one of the allowed values',
    );
    expect(contract.check('GET', scraper, 404, { error: 'x', code: 'not_found', stack: 'at …' }, json)).toContain(
      'must NOT have additional properties',
    );
    // Scraping routes answer scraping-style bodies.
    const run = `/api/scrape/runs/${randomUUID()}`;
    expect(contract.check('GET', run, 404, { error: 'x', code: 'not_found' }, json)).toContain("must have required property 'success'");
    expect(contract.check('GET', run, 404, { success: false, error: 'x', code: 'not_found', errorType: 'not_found' }, json)).toBeNull();
    expect(contract.check('GET', '/api/leads', 200, '<html>', 'text/html')).toContain('Content-Type text/html');
    // A method the path does not document: only a 405 with an Error body.
    expect(
      contract.check('PUT', '/api/leads', 405, { error: 'PUT is not allowed on /api/leads', code: 'method_not_allowed' }, json),
    ).toBeNull();
    expect(contract.check('PUT', '/api/leads', 200, {}, json)).toContain('only 405');
    // Undocumented by design.
    for (const path of ['/graphql', '/trpc/leads.list', '/healthz', '/docs/swagger-ui.css', '/openapi.json', '/api/nothing-here']) {
      expect(contract.check('GET', path, 200, { anything: true }, json), path).toBeNull();
    }
  });

  it('holds the declared response headers: the request id always there, the rate-limit state an integer', async () => {
    const contract = contractFor(JSON.stringify(document));
    const answered = await server.request('GET', '/api/leads/capacity', { key: (await createTestWorkspace()).apiKey });
    const check = (headers: Headers) => contract.check('GET', '/api/leads/capacity', 200, answered.body, json, headers);
    expect(check(answered.headers)).toBeNull();
    const withoutId = new Headers(answered.headers);
    withoutId.delete('x-request-id');
    expect(check(withoutId)).toContain('requires the header X-Request-Id, which is missing');
    const wrongCount = new Headers(answered.headers);
    wrongCount.set('RateLimit-Remaining', 'many');
    expect(check(wrongCount)).toContain('the header RateLimit-Remaining: "many" does not match its schema');
  });

  it('fails the request whose response the document does not describe, naming it', async () => {
    const served = await fetchContract(server.baseUrl); // the same instance the hook checks with
    const tampered = structuredClone(document);
    delete (tampered.paths['/api/user']!.get!.responses as Record<string, unknown>)['401'];
    vi.spyOn(served, 'check').mockImplementationOnce((...args) => contractFor(JSON.stringify(tampered)).check(...args));
    await expect(server.request('GET', '/api/user')).rejects.toThrow(
      'OpenAPI contract: GET /api/user → 401, which paths["/api/user"].get does not document (it documents 200, 414, 429, 431, 500, 503)',
    );
  });
});

describe('every operation as documented', () => {
  it('answers 401 without a credential and 403 without the permission', async () => {
    const workspace = await createTestWorkspace();
    for (const { method, path, operation } of operations()) {
      const url = concrete(path);
      expect((await server.request(method, url)).status, `${method} ${path}`).toBe(401);
      if (operation['x-permission'] === 'any') continue;
      // A key per operation: there are more operations than this file's rate limit (40 a minute) lets one key call.
      // A key holding some other permission: `agents` for every operation but the agent's own, which get `read`.
      const noPermission = await workspace.keyWith(operation['x-permission'] === 'agents' ? 'read' : 'agents');
      const refused = await server.request(method, url, { key: noPermission });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.code).toBe('missing_permission');
    }
  });

  it('answers 429 over the rate limit, with Retry-After', async () => {
    const { apiKey } = await createTestWorkspace();
    for (let i = 0; i < 40; i++) await server.request('GET', '/api/user', { key: apiKey });
    for (const { method, path } of operations()) {
      const limited = await server.request(method, concrete(path), { key: apiKey });
      expect(limited.status, `${method} ${path}`).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.retryAfter);
    }
  });

  it('answers bodies that are not JSON, malformed or too large with 415, 400 and 413 where it takes one', async () => {
    const { apiKey } = await createTestWorkspace();
    let checked = 0;
    for (const { method, path, operation } of operations()) {
      // A JSON body's refusals (a CSV upload's have their own test: test/leads/csv-import.test.ts).
      if (
        !documents(operation, 415) ||
        !(operation as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content?.['application/json']
      )
        continue;
      const url = concrete(path);
      expect(
        (await server.request(method, url, { key: apiKey, rawBody: 'a=1', headers: { 'content-type': 'text/plain' } })).status,
        `${method} ${path}`,
      ).toBe(415);
      const malformed = await server.request(method, url, {
        key: apiKey,
        rawBody: '{"a":',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.body.code, `${method} ${path}`).toBe('invalid_json');
      expect((await server.request(method, url, { key: apiKey, body: { padding: 'x'.repeat(5000) } })).status, `${method} ${path}`).toBe(
        413,
      );
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('answers unknown ids and empty input as documented, and other methods with 405', async () => {
    const workspace = await createTestWorkspace();
    const keys = [workspace.apiKey, await workspace.keyWith('*'), await workspace.keyWith('*')];
    let sent = 0;
    for (const { method, path } of operations()) {
      // Whatever each answers (404, 400, 200, ...), the hook holds it to the document.
      await server.request(method, concrete(path), { key: keys[Math.floor(sent++ / 30)]!, ...(method !== 'GET' && { body: {} }) });
    }
    for (const path of Object.keys(document.paths)) {
      const wrong = await server.request('PUT', concrete(path), { key: workspace.apiKey, body: {} });
      expect(wrong.status, path).toBe(405);
      expect(wrong.headers.get('allow')).toBeTruthy();
    }
  });
});
