import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose from 'mongoose';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

/** The store's plan for a find; a real find first, since SQLite re-reads a changed schema when it runs a statement, not when it explains one. */
async function planOf(collection: string, filter: Record<string, unknown>) {
  await mongoose.connection.db!.collection(collection).findOne(filter);
  return JSON.stringify((await mongoose.connection.db!.command({ explain: { find: collection, filter } })).queryPlanner);
}

describe('the embedded FerretDB', () => {
  it('answers a lookup by _id from an index, in a collection created after it started', async () => {
    const collection = mongoose.connection.db!.collection<{ _id: string; n: number }>('id_index_probe');
    await collection.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `doc-${n}`, n })));
    // The runner indexes new collections within about a second.
    const deadline = Date.now() + 10_000;
    while (!(await planOf('id_index_probe', { _id: 'doc-7' })).includes('USING INDEX') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await planOf('id_index_probe', { _id: 'doc-7' })).toContain('USING INDEX');
    expect(await planOf('id_index_probe', { n: 7 })).toContain('SCAN');
    expect(await collection.findOne({ _id: 'doc-7' })).toEqual({ _id: 'doc-7', n: 7 });
  });
});
