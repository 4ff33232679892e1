import { describe, expect, it } from 'vitest';
import { updateWorkspace } from '../../src/account/account.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const members = (key: string) => server.request('GET', '/api/members', { key });
const add = (key: string, body: Record<string, unknown>) => server.request('POST', '/api/members', { key, body });

describe('members and seats', () => {
  it('lists the owner alone on a new workspace, and refuses a second member on free with 403 seat_limit', async () => {
    const { apiKey, userId } = await createTestWorkspace('free');
    const res = await members(apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      members: [
        {
          id: userId,
          email: expect.stringMatching(/@example\.test$/),
          name: expect.any(String),
          role: 'owner',
          created_at: expect.any(String),
        },
      ],
      seats: { used: 1, limit: 1 },
    });
    const refused = await add(apiKey, { email: 'grace@acme.test', role: 'member' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'seat_limit', used: 1, limit: 1 });
    expect((await members(apiKey)).body.seats).toEqual({ used: 1, limit: 1 });
  });

  it('adds members up to the plan seats (starter 3), one per address, and never past the limit when added at once', async () => {
    const { apiKey } = await createTestWorkspace('starter');
    const grace = await add(apiKey, { email: 'Grace@acme.test', role: 'admin', name: 'Grace Hopper' });
    expect(grace.status).toBe(201);
    expect(grace.body.member).toEqual({
      id: expect.any(String),
      email: 'Grace@acme.test',
      name: 'Grace Hopper',
      role: 'admin',
      created_at: expect.any(String),
    });
    const again = await add(apiKey, { email: 'grace@ACME.test', role: 'member' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict', field: 'email' });
    const racing = await Promise.all(['a', 'b', 'c'].map((n) => add(apiKey, { email: `${n}@acme.test`, role: 'member' })));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of racing.filter((r) => r.status !== 201)) expect(r.body).toMatchObject({ code: 'seat_limit', limit: 3 });
    const list = (await members(apiKey)).body;
    expect(list.seats).toEqual({ used: 3, limit: 3 });
    expect(list.members.map((m: { role: string }) => m.role)).toEqual(['owner', 'admin', 'member']);
  });

  it('makes a key for a member that GET /api/user answers as them; removing them revokes it; the owner stays (409)', async () => {
    const { apiKey, workspaceId, userId, keyWith } = await createTestWorkspace('pro');
    const ada = (await add(apiKey, { email: 'ada@acme.test', role: 'member', name: 'Ada' })).body.member;
    const created = await server.request('POST', '/api/keys', {
      key: apiKey,
      body: { name: 'Ada laptop', scopes: ['read'], user_id: ada.id },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatchObject({ user_id: ada.id, scopes: ['read'] });
    const me = await server.request('GET', '/api/user', { key: created.body.secret });
    expect(me.body.data).toMatchObject({ userId: ada.id, email: 'ada@acme.test', name: 'Ada' });
    expect((await server.request('GET', '/api/user', { key: apiKey })).body.data.userId).toBe(userId);

    // A member's read key cannot manage members; a stranger's id is 404 naming user_id.
    expect((await add(created.body.secret, { email: 'x@acme.test', role: 'member' })).status).toBe(403);
    const other = await createTestWorkspace('pro');
    const stranger = await server.request('POST', '/api/keys', {
      key: apiKey,
      body: { name: 'x', scopes: ['read'], user_id: other.userId },
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body.field).toBe('user_id');
    expect((await server.request('DELETE', `/api/members/${ada.id}`, { key: other.apiKey })).status).toBe(404);

    const removed = await server.request('DELETE', `/api/members/${ada.id}`, { key: apiKey });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ok: true, id: ada.id, keys_revoked: 1 });
    expect((await server.request('GET', '/api/user', { key: created.body.secret })).status).toBe(401);
    expect((await members(apiKey)).body.seats.used).toBe(1);

    const owner = await server.request('DELETE', `/api/members/${userId}`, { key: apiKey });
    expect(owner.status).toBe(409);
    expect((await server.request('GET', '/api/user', { key: apiKey })).status).toBe(200);
    expect((await server.request('DELETE', `/api/members/${userId}`, { key: await keyWith('read', 'write') })).status).toBe(403);
    // Seats follow the plan: down to free, a second member is refused again.
    await updateWorkspace(workspaceId, { plan: 'free' });
    expect((await add(apiKey, { email: 'bob@acme.test', role: 'member' })).body).toMatchObject({ code: 'seat_limit', used: 1, limit: 1 });
  });
});
