import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';
import { rawRequest as rawRequestTo, type RawResponse } from '../support/raw-http.ts';

const server = useApiServer();

const rawRequest = (request: string, chunks = 1) => rawRequestTo(server.baseUrl, request, chunks);

const expectJsonError = (res: RawResponse, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers.connection).toBe('close');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  expect(JSON.parse(res.body)).toEqual({ error: expect.any(String), code });
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
};

describe('over-long requests', () => {
  const longUrl = `/api/leads?q=${'a'.repeat(20_000)}`;
  const bigHeader = `X-Padding: ${'b'.repeat(20_000)}`;

  it("answers a URL over Node's header limit with a JSON 414 and closes the connection", async () => {
    expectJsonError(await rawRequest(`GET ${longUrl} HTTP/1.1\r\nHost: api.test\r\n\r\n`), 414, 'uri_too_long');
    // Also when the URL arrives in several packets, the one that overflows holding neither its start nor its end.
    expectJsonError(await rawRequest(`GET ${longUrl}${'c'.repeat(20_000)} HTTP/1.1\r\nHost: api.test\r\n\r\n`, 4), 414, 'uri_too_long');
  });

  it("answers headers over Node's limit with a JSON 431 and closes the connection", async () => {
    expectJsonError(await rawRequest(`GET /api/user HTTP/1.1\r\nHost: api.test\r\n${bigHeader}\r\n\r\n`), 431, 'headers_too_large');
    // In pieces: many header lines, and one long cookie that overflows in a packet holding neither its start nor its end.
    const manyHeaders = Array.from({ length: 400 }, (_, i) => `X-Header-${i}: ${'d'.repeat(50)}\r\n`).join('');
    expectJsonError(await rawRequest(`GET /api/user HTTP/1.1\r\nHost: api.test\r\n${manyHeaders}\r\n`, 3), 431, 'headers_too_large');
    const cookie = `Cookie: ${Array.from({ length: 3_000 }, (_, i) => `c${i}=v${i}`).join('; ')}`;
    expectJsonError(await rawRequest(`GET /api/user HTTP/1.1\r\nHost: api.test\r\n${cookie}\r\n\r\n`, 6), 431, 'headers_too_large');
  });

  it('answers a malformed request line with a JSON 400', async () => {
    expectJsonError(await rawRequest('G@T /api/user HTTP/1.1\r\nHost: api.test\r\n\r\n'), 400, 'validation_failed');
  });

  it('answers a URL over 8,192 characters that Node accepts with a JSON 414 from the route', async () => {
    const res = await server.request('GET', `/api/leads?q=${'a'.repeat(9_000)}`, { headers: { 'x-request-id': 'long-url-1' } });
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ error: expect.any(String), code: 'uri_too_long' });
    expect(res.headers.get('x-request-id')).toBe('long-url-1');
    // Just under the cap is served as usual (401: no key).
    expect((await server.request('GET', `/api/leads?q=${'a'.repeat(8_000)}`)).status).toBe(401);
  });
});
