import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * A multi-document update on the embedded store writes its documents many
 * to a transaction; what it does is still what MongoDB does: every
 * matching document changed and counted, and on a unique-index conflict
 * part way the documents before the conflicting one changed, the rest not.
 */
describe('multi-document updates on the embedded store', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
  });
  afterAll(() => client.close());

  const seed = (name: string, count: number) =>
    db.collection(name).insertMany(Array.from({ length: count }, (_, n) => ({ _id: `d${n}` as never, group: 'a', slot: n })));

  it('changes and counts every matching document of an updateMany over hundreds', async () => {
    await seed('many', 250);
    const result = await db.collection('many').updateMany({ group: 'a', slot: { $lt: 240 } }, { $inc: { slot: 1000 } });
    expect(result).toMatchObject({ matchedCount: 240, modifiedCount: 240 });
    expect(await db.collection('many').countDocuments({ slot: { $gte: 1000 } })).toBe(240);
    expect(await db.collection('many').countDocuments({ slot: { $lt: 1000 } })).toBe(10);
  });

  it('keeps the documents changed before a unique-index conflict part way, and answers 11000', async () => {
    const slots = db.collection('slots');
    await slots.createIndex({ slot: 1 }, { unique: true });
    await seed('slots', 150);
    // Document 120 would take the slot this one holds.
    await slots.insertOne({ _id: 'holder' as never, group: 'b', slot: 1120 });
    await expect(slots.updateMany({ group: 'a' }, { $inc: { slot: 1000 } })).rejects.toMatchObject({ code: 11000 });
    const moved = await slots.find({ group: 'a', slot: { $gte: 1000 } }, { projection: { _id: 1 } }).toArray();
    expect(moved.map((doc) => doc._id).sort()).toEqual(Array.from({ length: 120 }, (_, n) => `d${n}`).sort());
  });
});
