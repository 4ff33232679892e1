import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedFerretDb } from '../../src/db/embedded-ferretdb.ts';
import { ensureFerretDbBinary } from '../../src/db/ferretdb-binary.ts';

/**
 * A data folder FerretDB as published wrote (indexes on the documents' JSON text, no columns of ours) is
 * opened by the patched build: its indexed fields get their columns, filled from the documents stored, so
 * the same queries answer the same documents from the indexes, and writes keep the columns true.
 */
describe('a data folder written by FerretDB as published', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-upgrade-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const people = Array.from({ length: 300 }, (_, n) => ({
    _id: `p-${n}`,
    team: `team-${n % 4}`,
    score: n % 2 ? n : n + 0.5,
    joined: new Date(Date.UTC(1995, 0, 1) + n * 86_400_000),
    email: `p${n}@example.test`,
    note: n % 10 ? 'plain' : { nested: n },
  }));

  async function withStore<T>(binary: string, use: (client: MongoClient) => Promise<T>): Promise<T> {
    const store = await startEmbeddedFerretDb({ dataDir, binary, log: () => {}, role: 'test' });
    const client = await MongoClient.connect(store.uri);
    try {
      return await use(client);
    } finally {
      await client.close();
      await store.stop();
    }
  }

  it('answers from the indexes after the upgrade, and keeps them true through writes', async () => {
    await withStore(
      ensureFerretDbBinary(() => {}, undefined, 'upstream'),
      async (client) => {
        const collection = client.db('leadops').collection<(typeof people)[number]>('people');
        await collection.createIndex({ team: 1, joined: -1 });
        await collection.createIndex({ score: 1 });
        await collection.createIndex({ email: 1 }, { unique: true });
        await collection.insertMany(people);
      },
    );

    await withStore(
      ensureFerretDbBinary(() => {}),
      async (client) => {
        const db = client.db('leadops');
        const collection = db.collection<(typeof people)[number]>('people');
        const plan = async (filter: Record<string, unknown>) =>
          JSON.stringify((await db.command({ explain: { find: 'people', filter } })).queryPlanner);

        expect(await collection.countDocuments({ team: 'team-1', joined: { $lt: new Date(Date.UTC(1995, 3, 1)) } })).toBe(
          people.filter((p) => p.team === 'team-1' && p.joined < new Date(Date.UTC(1995, 3, 1))).length,
        );
        expect(
          (
            await collection
              .find({ score: { $gte: 10, $lt: 20 } })
              .sort({ score: 1 })
              .toArray()
          ).map((p) => p._id),
        ).toEqual(
          people
            .filter((p) => p.score >= 10 && p.score < 20)
            .sort((a, b) => a.score - b.score)
            .map((p) => p._id),
        );
        expect(await collection.findOne({ _id: 'p-7' })).toMatchObject({ email: 'p7@example.test' });
        expect(await plan({ team: 'team-2' })).toMatch(/SEARCH .* USING INDEX/);
        expect(await plan({ _id: 'p-7' })).toMatch(/SEARCH .* USING INDEX/);

        // Writes after the upgrade: an indexed field changed, one left alone, a unique index still refusing.
        await collection.updateMany({ team: 'team-3' }, { $set: { team: 'team-9' } });
        await collection.updateOne({ _id: 'p-8' }, { $set: { note: 'changed' } });
        expect(await collection.countDocuments({ team: 'team-3' })).toBe(0);
        expect(await collection.countDocuments({ team: 'team-9' })).toBe(people.filter((p) => p.team === 'team-3').length);
        expect(await collection.findOne({ team: 'team-0', note: 'changed' })).toMatchObject({ _id: 'p-8' });
        await expect(collection.updateOne({ _id: 'p-9' }, { $set: { email: 'p10@example.test' } })).rejects.toMatchObject({ code: 11000 });
        await collection.insertOne({ _id: 'p-new', team: 'team-9', score: 1, joined: new Date(0), email: 'new@example.test', note: 'x' });
        expect(await collection.countDocuments({ team: 'team-9', score: 1 })).toBe(1);
      },
    );
  }, 180_000);
});
