import { beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '../../schema/account.ts';
import { createTestWorkspace, useApiServer, type TestWorkspace } from '../support/api-server.ts';

const server = useApiServer();
const someId = '3f1c2b7a-6f0e-4a51-9d2c-8b7e6a5d4c3b';

/** Every Account and Leads route with the permission the spec gives it, and a valid request. */
const routes: Array<{ method: string; path: string; permission: Permission; body?: unknown }> = [
  { method: 'GET', path: '/api/leads', permission: 'read' },
  { method: 'GET', path: '/api/leads/capacity', permission: 'read' },
  { method: 'GET', path: '/api/leads/fields', permission: 'read' },
  { method: 'GET', path: '/api/leads/research-profiles', permission: 'read' },
  { method: 'GET', path: '/api/leads/validate', permission: 'read' },
  { method: 'POST', path: '/api/leads', permission: 'write', body: { leads: [{ email: 'p@x.test' }] } },
  { method: 'PATCH', path: `/api/leads/${someId}`, permission: 'write', body: { status: 'new' } },
  { method: 'PATCH', path: '/api/leads', permission: 'write', body: { ids: [someId], status: 'new' } },
  { method: 'DELETE', path: '/api/leads', permission: 'write', body: { ids: [someId] } },
  { method: 'POST', path: '/api/leads/fields', permission: 'write', body: { label: 'Size' } },
  { method: 'POST', path: '/api/leads/research-profiles', permission: 'write', body: { name: 'n', criteria: {} } },
];

describe('permissions', () => {
  let workspace: TestWorkspace;
  const keys: Partial<Record<Permission, string>> = {};

  beforeAll(async () => {
    workspace = await createTestWorkspace();
    for (const scope of ['read', 'write', 'scraper', 'agents'] as const) keys[scope] = await workspace.keyWith(scope);
  });

  it.each(routes)('$method $path needs $permission', async ({ method, path, permission, body }) => {
    const wrong = permission === 'read' ? keys.write! : keys.read!;
    const denied = await server.request(method, path, { key: wrong, body });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: expect.stringContaining(permission), code: 'missing_permission', permission });

    const unrelated = await server.request(method, path, { key: keys.agents!, body });
    expect(unrelated.status).toBe(403);

    const allowed = await server.request(method, path, { key: keys[permission]!, body });
    expect([200, 201, 404]).toContain(allowed.status);
    const owner = await server.request(method, path, { key: workspace.apiKey, body });
    expect(owner.status).not.toBe(403);

    const anonymous = await server.request(method, path, { body });
    expect(anonymous.status).toBe(401);
  });
});
