import mongoose from 'mongoose';
import { expect } from 'vitest';
import type { TestServer } from './api-server.ts';

/** Imports leads through the API and returns them as stored. */
export async function importLeads(
  server: TestServer,
  key: string,
  leads: Array<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
) {
  const res = await server.request('POST', '/api/leads', { key, body: { leads, ...extra } });
  expect(res.status).toBe(201);
  return res.body.leads as Array<{ id: string } & Record<string, any>>;
}

/** Stores `count` plain leads straight into the database (filling a workspace towards its cap fast). */
export async function storeFillerLeads(workspaceId: string, count: number) {
  const at = new Date();
  const docs = Array.from({ length: count }, (_, n) => {
    const _id = `filler-${workspaceId}-${n}`;
    return {
      _id,
      workspaceId,
      brandId: 'filler',
      email: `filler${n}@filler.test`,
      emailKey: `e:filler${n}@filler.test`,
      linkedinKey: `~${_id}`,
      archivedAt: null,
      createdAt: at,
      updatedAt: at,
    };
  });
  for (let i = 0; i < docs.length; i += 1000)
    await mongoose.connection.db!.collection('leads').insertMany(docs.slice(i, i + 1000) as never[]);
}
