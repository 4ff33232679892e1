import { describe, expect, it } from 'vitest';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';

const server = useApiServer({ RATE_LIMIT_PER_MINUTE: '5' });
const clock = useTestClock();

describe('rate limit per key', () => {
  it('allows the limit per one-minute window, then answers 429 with Retry-After and RateLimit headers', async () => {
    const { apiKey } = await createTestWorkspace();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await server.request('GET', '/api/user', { key: apiKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const limited = await server.request('GET', '/api/leads', { key: apiKey });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
  });

  it('states the window in its headers: a minute from the first request, the reset counting down to its end, then a new window', async () => {
    const { apiKey } = await createTestWorkspace();
    clock.freeze();
    const first = await server.request('GET', '/api/user', { key: apiKey });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('5;w=60');
    expect(first.headers.get('ratelimit-remaining')).toBe('4');
    expect(first.headers.get('ratelimit-reset')).toBe('60');
    clock.advance(45_300);
    for (let i = 0; i < 4; i++)
      expect((await server.request('GET', '/api/user', { key: apiKey })).headers.get('ratelimit-reset')).toBe('15');
    const limited = await server.request('GET', '/api/user', { key: apiKey });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('15');
    expect(limited.headers.get('ratelimit-reset')).toBe('15');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.body.retryAfter).toBe(15);
    // The window ends a minute after the first request: the whole limit again, in a new window.
    clock.advance(14_700);
    const next = await server.request('GET', '/api/user', { key: apiKey });
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit-remaining')).toBe('4');
    expect(next.headers.get('ratelimit-reset')).toBe('60');
  });

  it("admits every one of a fresh key's concurrent first requests while they are within the limit", async () => {
    const workspace = await createTestWorkspace();
    for (let round = 0; round < 10; round++) {
      const key = await workspace.keyWith('read');
      const responses = await Promise.all(Array.from({ length: 5 }, () => server.request('GET', '/api/user', { key })));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(responses.map((r) => r.headers.get('ratelimit-remaining')).sort()).toEqual(['0', '1', '2', '3', '4']);
    }
  });

  it('admits exactly the limit out of a concurrent burst', async () => {
    const { apiKey } = await createTestWorkspace();
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => server.request('GET', '/api/user', { key: apiKey }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('counts each key separately, and GraphQL and tRPC calls against the same budget', async () => {
    const workspace = await createTestWorkspace();
    const other = await workspace.keyWith('read');
    for (let i = 0; i < 3; i++) expect((await server.request('GET', '/api/user', { key: workspace.apiKey })).status).toBe(200);
    const graphql = await server.request('POST', '/graphql', { key: workspace.apiKey, body: { query: '{ leadsCapacity { used } }' } });
    expect(graphql.body.data.leadsCapacity.used).toBe(0);
    const trpc = await server.request('GET', '/trpc/leads.capacity', { key: workspace.apiKey });
    expect(trpc.status).toBe(200);
    const limited = await server.request('GET', '/api/user', { key: workspace.apiKey });
    expect(limited.status).toBe(429);
    const limitedGraphql = await server.request('POST', '/graphql', {
      key: workspace.apiKey,
      body: { query: '{ leadsCapacity { used } }' },
    });
    expect(limitedGraphql.body.errors[0].extensions.code).toBe('rate_limited');
    expect((await server.request('GET', '/api/user', { key: other })).status).toBe(200);
  });
});
