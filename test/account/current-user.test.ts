import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/auth/api-key.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

describe('GET /api/user', () => {
  it('returns the documented envelope for a valid key', async () => {
    const workspace = await createTestWorkspace();
    const res = await server.request('GET', '/api/user', { key: workspace.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        userId: workspace.userId,
        email: expect.stringMatching(/@example\.test$/),
        name: expect.any(String),
        apiKey: { id: expect.any(String), scopes: ['*'], status: 'active', rateLimit: 10000 },
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    });
  });

  it('accepts a key with any single permission', async () => {
    const workspace = await createTestWorkspace();
    const key = await workspace.keyWith('endpoints:invoke');
    const res = await server.request('GET', '/api/user', { key });
    expect(res.status).toBe(200);
    expect(res.body.data.apiKey.scopes).toEqual(['endpoints:invoke']);
  });

  it('answers 401 without a credential, or with a malformed or unknown one', async () => {
    const missing = await server.request('GET', '/api/user');
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('unauthorized');
    for (const header of ['Basic abc', 'Bearer', 'Bearer not-a-key', 'Bearer lok_short', `Bearer lok_${'a'.repeat(40)}`]) {
      const res = await server.request('GET', '/api/user', { headers: { authorization: header } });
      expect(res.status, header).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized', error: expect.any(String) });
    }
  });

  it("answers 401 for a key revoked right after its use (the use's own write never undoes the revocation)", async () => {
    const workspace = await createTestWorkspace();
    for (let i = 0; i < 20; i++) {
      const created = await createApiKey({
        workspaceId: workspace.workspaceId,
        userId: workspace.userId,
        name: `temp ${i}`,
        scopes: ['read'],
      });
      // The revocation races the use's own write (its first in the minute).
      const used = server.request('GET', '/api/user', { key: created.apiKey });
      await new Promise((r) => setTimeout(r, i % 4));
      await revokeApiKey(created.id);
      await used;
      await new Promise((r) => setTimeout(r, 20)); // the use's write, had it been on the key, lands by now
      const res = await server.request('GET', '/api/user', { key: created.apiKey });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/revoked/);
    }
  });

  it('answers 401 for an expired key', async () => {
    const workspace = await createTestWorkspace();
    const created = await createApiKey({
      workspaceId: workspace.workspaceId,
      userId: workspace.userId,
      name: 'expired',
      scopes: ['*'],
      expiresAt: new Date(Date.now() - 1000),
    });
    const res = await server.request('GET', '/api/user', { key: created.apiKey });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/expired/);
  });

  it('sends rate-limit headers on success', async () => {
    const workspace = await createTestWorkspace();
    const res = await server.request('GET', '/api/user', { key: workspace.apiKey });
    expect(res.headers.get('ratelimit-limit')).toBe('10000');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBe(9999);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });
});
