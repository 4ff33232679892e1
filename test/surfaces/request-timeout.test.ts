import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';
import { rawExchange } from '../support/raw-http.ts';

/** The shortest time a client may be given to send its request. */
const server = useApiServer({ REQUEST_TIMEOUT_MS: '1000' });

describe('a client slower than REQUEST_TIMEOUT_MS to send its request', () => {
  it('is answered 408 and the connection closed when its headers never end', async () => {
    const res = await rawExchange(server.baseUrl, ['GET /api/user HTTP/1.1\r\nHost: api.test\r\nX-Slow: ']);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
  });

  it('is answered 408 and the connection closed when its body never ends', async () => {
    const head = 'POST /api/leads HTTP/1.1\r\nHost: api.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const res = await rawExchange(server.baseUrl, [head, '{"leads":']);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
  });
});
