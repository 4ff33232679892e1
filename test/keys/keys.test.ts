import { createHash } from 'node:crypto';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { apiScopes, apiResource } from '../../src/oauth/oauth-scopes.ts';
import { oauthProvider } from '../../src/oauth/oauth-provider.ts';
import type { AppRouter } from '../../src/http/router.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';
import { registerClient } from '../support/oauth.ts';

const server = useApiServer({}, { publicBaseUrl: true });
const clock = useTestClock();

const createKey = (key: string, body: Record<string, unknown>) => server.request('POST', '/api/keys', { key, body });

/** What each surface answers a key with: REST and GraphQL status-like outcomes, and tRPC's HTTP status. */
async function surfaces(key: string) {
  const rest = (await server.request('GET', '/api/leads/capacity', { key })).status;
  const graphql = (await server.request('POST', '/graphql', { key, body: { query: '{ leadsCapacity { used } }' } })).body;
  const client = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${server.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } })],
  });
  const trpc = await client.leads.capacity.query().then(
    () => 200,
    (error: { data?: { httpStatus?: number } }) => error.data?.httpStatus,
  );
  return { rest, graphql: graphql.errors ? graphql.errors[0].extensions.status : 200, trpc };
}

describe('API keys over HTTP', () => {
  it('creates a key whose secret is shown once, lists it without it, and revocation stops it at once on every surface', async () => {
    const { apiKey, workspaceId, userId } = await createTestWorkspace();
    const created = await createKey(apiKey, { name: 'CRM sync', scopes: ['read', 'write'] });
    expect(created.status).toBe(201);
    const { key, secret } = created.body;
    expect(secret).toMatch(/^lok_[0-9A-Za-z]{40}$/);
    expect(key).toEqual({
      id: expect.any(String),
      name: 'CRM sync',
      scopes: ['read', 'write'],
      status: 'active',
      brand_id: null,
      user_id: userId,
      hint: `lok_…${secret.slice(-4)}`,
      created_at: expect.any(String),
      expires_at: null,
      last_used_at: null,
    });

    expect(await surfaces(secret)).toEqual({ rest: 200, graphql: 200, trpc: 200 });

    const listed = await server.request('GET', '/api/keys', { key: apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((k: { name: string }) => k.name)).toEqual(['CRM sync', 'Owner key']);
    expect(listed.body.keys[0].last_used_at).not.toBeNull();
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(4));
    expect(text).not.toContain(createHash('sha256').update(secret).digest('hex'));

    const revoked = await server.request('DELETE', `/api/keys/${key.id}`, { key: apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toMatchObject({ id: key.id, status: 'revoked' });
    expect(await surfaces(secret)).toEqual({ rest: 401, graphql: 401, trpc: 401 });
    const after = await server.request('GET', '/api/keys', { key: apiKey });
    expect(after.body.keys.find((k: { id: string }) => k.id === key.id).status).toBe('revoked');
    expect(workspaceId).toBeTruthy();
  });

  it('refuses an expired key like a revoked one, lists it as expired, and stops counting it', async () => {
    const { apiKey } = await createTestWorkspace();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await createKey(apiKey, { name: 'Short-lived', scopes: ['read'], expires_at: expiresAt });
    expect(created.status).toBe(201);
    expect(created.body.key.expires_at).toBe(expiresAt);
    expect((await server.request('GET', '/api/usage', { key: apiKey })).body.keys).toEqual({ active: 2, limit: 5 });

    clock.advance(2 * 3_600_000);
    const refused = await server.request('GET', '/api/leads/capacity', { key: created.body.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/expired/);
    const listed = await server.request('GET', '/api/keys', { key: apiKey });
    expect(listed.body.keys[0]).toMatchObject({ name: 'Short-lived', status: 'expired' });
    expect((await server.request('GET', '/api/usage', { key: apiKey })).body.keys).toEqual({ active: 1, limit: 5 });
  });

  it("holds the plan's limit of active keys: 403 key_limit with used and limit, room again after a revocation", async () => {
    const { apiKey } = await createTestWorkspace('free');
    const made = [];
    for (let i = 0; i < 4; i++) made.push((await createKey(apiKey, { name: `k${i}`, scopes: ['read'] })).body.key.id);
    const refused = await createKey(apiKey, { name: 'one too many', scopes: ['read'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'key_limit', used: 5, limit: 5 });
    const listed = await server.request('GET', '/api/keys', { key: apiKey });
    expect(listed.body.keys).toHaveLength(5);

    await server.request('DELETE', `/api/keys/${made[0]}`, { key: apiKey });
    expect((await createKey(apiKey, { name: 'replacement', scopes: ['read'] })).status).toBe(201);
  });

  it("answers 400 naming the field for unknown or no scopes and a past expires_at, 404 for another workspace's brand or key", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const unknown = await createKey(mine.apiKey, { name: 'x', scopes: ['read', 'admin'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.field).toBe('scopes.1');
    const empty = await createKey(mine.apiKey, { name: 'x', scopes: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.field).toBe('scopes');
    const past = await createKey(mine.apiKey, { name: 'x', scopes: ['read'], expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ code: 'validation_failed', field: 'expires_at' });
    // A replay would need the secret kept: the header is refused rather than the secret stored.
    const idempotent = await server.request('POST', '/api/keys', {
      key: mine.apiKey,
      body: { name: 'x', scopes: ['read'] },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(idempotent.status).toBe(400);
    expect(idempotent.body.field).toBe('Idempotency-Key');
    const brand = await createKey(mine.apiKey, { name: 'x', scopes: ['read'], brand_id: theirs.brandId });
    expect(brand.status).toBe(404);
    expect(brand.body.field).toBe('brand_id');

    const theirKey = (await createKey(theirs.apiKey, { name: 'theirs', scopes: ['read'] })).body;
    const foreign = await server.request('DELETE', `/api/keys/${theirKey.key.id}`, { key: mine.apiKey });
    expect(foreign.status).toBe(404);
    expect(await surfaces(theirKey.secret)).toEqual({ rest: 200, graphql: 200, trpc: 200 });
    expect((await server.request('GET', '/api/keys', { key: mine.apiKey })).body.keys).toHaveLength(1);
  });

  it('refuses keys without full access and OAuth tokens (whatever they were granted) with 403', async () => {
    const workspace = await createTestWorkspace();
    const narrow = await workspace.keyWith('read', 'write', 'scraper', 'agents', 'endpoints:invoke', 'leads:validate', 'outreach:send');
    const clientId = (await registerClient(server, 'http://127.0.0.1:9/callback')).body.client_id as string;
    const provider = oauthProvider();
    const token = await new provider.AccessToken({
      accountId: workspace.userId,
      client: await provider.Client.find(clientId),
      aud: apiResource(),
      scope: apiScopes.join(' '),
      gty: 'authorization_code',
      extra: { workspace_id: workspace.workspaceId },
    } as never).save();
    expect((await server.request('GET', '/api/leads/capacity', { key: token })).status).toBe(200);

    for (const credential of [narrow, token]) {
      const create = await createKey(credential, { name: 'x', scopes: ['read'] });
      expect(create.status).toBe(403);
      expect(create.body).toMatchObject({ code: 'missing_permission', permission: '*' });
      expect((await server.request('GET', '/api/keys', { key: credential })).status).toBe(403);
      const ownerKeyId = (await server.request('GET', '/api/keys', { key: workspace.apiKey })).body.keys.at(-1).id;
      expect((await server.request('DELETE', `/api/keys/${ownerKeyId}`, { key: credential })).status).toBe(403);
    }
  });
});
