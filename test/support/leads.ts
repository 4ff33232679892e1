import { expect } from 'vitest';
import type { TestServer } from './api-server.ts';

/** Imports leads through the API and returns them as stored. */
export async function importLeads(server: TestServer, key: string, leads: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  const res = await server.request('POST', '/api/leads', { key, body: { leads, ...extra } });
  expect(res.status).toBe(201);
  return res.body.leads as Array<{ id: string } & Record<string, any>>;
}
