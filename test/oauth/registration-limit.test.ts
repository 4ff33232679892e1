import { describe, expect, it } from 'vitest';
import { useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { registerClient } from '../support/oauth.ts';

const server = useApiServer({}, { publicBaseUrl: true });
const clock = useTestClock();

describe('open client registration', () => {
  it('takes at most 20 registrations a minute from one address', async () => {
    const statuses = [];
    for (let i = 0; i < 21; i++) statuses.push((await registerClient(server, 'http://127.0.0.1:9/callback')).status);
    expect(statuses.slice(0, 20).every((status) => status === 201)).toBe(true);
    expect(statuses[20]).toBe(429);
    const refused = await fetch(`${server.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'] }),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
    clock.advance(61_000);
    expect((await registerClient(server, 'http://127.0.0.1:9/callback')).status).toBe(201);
  });
});
