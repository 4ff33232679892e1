import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * The embedded store applies a single-document write atomically for every client, as MongoDB
 * does: conditional updates race from several connections at once and exactly the allowed
 * ones win; no update is lost; a deleted document stays deleted.
 */
describe('single-document atomicity on the embedded store, across clients', () => {
  const clients: MongoClient[] = [];
  let dbs: Db[];

  beforeAll(async () => {
    const uri = freshDatabaseUri();
    for (let n = 0; n < 4; n++) clients.push(await MongoClient.connect(uri, { maxPoolSize: 30 }));
    dbs = clients.map((client) => client.db());
  });
  afterAll(() => Promise.all(clients.map((client) => client.close())));

  /** `count` calls spread over the clients, all started at once. */
  const race = <T>(count: number, call: (db: Db, n: number) => Promise<T>) =>
    Promise.all(Array.from({ length: count }, (_, n) => call(dbs[n % dbs.length]!, n)));

  it('lets exactly as many conditional decrements win as the balance covers (updateOne)', async () => {
    await dbs[0]!.collection('balances').insertOne({ _id: 'b1' as never, balance: 10 });
    const results = await race(100, (db) =>
      db.collection('balances').updateOne({ _id: 'b1' as never, balance: { $gte: 1 } }, { $inc: { balance: -1 } }),
    );
    expect(results.filter((r) => r.modifiedCount === 1)).toHaveLength(10);
    expect(await dbs[0]!.collection('balances').findOne({ _id: 'b1' as never })).toMatchObject({ balance: 0 });
  });

  it('lets exactly as many conditional decrements win as the balance covers (findOneAndUpdate)', async () => {
    await dbs[0]!.collection('balances').insertOne({ _id: 'b2' as never, balance: 10, owner: 'w' });
    const results = await race(100, (db) =>
      db
        .collection('balances')
        .findOneAndUpdate({ owner: 'w', balance: { $gte: 1 } }, { $inc: { balance: -1 } }, { returnDocument: 'after' }),
    );
    const balances = results.filter((r) => r !== null).map((r) => r!.balance as number);
    expect(balances.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await dbs[0]!.collection('balances').findOne({ _id: 'b2' as never })).toMatchObject({ balance: 0 });
  });

  it('hands each queued job to exactly one of many racing claims', async () => {
    const jobs = dbs[0]!.collection('jobs');
    await jobs.createIndex({ status: 1, at: 1 });
    await jobs.insertMany(Array.from({ length: 40 }, (_, n) => ({ _id: `j${n}` as never, status: 'queued', at: n })));
    const claims = await race(120, (db, n) =>
      db
        .collection('jobs')
        .findOneAndUpdate({ status: 'queued' }, { $set: { status: 'taken', by: n } }, { sort: { at: 1 }, returnDocument: 'after' }),
    );
    const taken = claims.filter((claim) => claim !== null).map((claim) => claim!._id as unknown as string);
    expect(taken).toHaveLength(40);
    expect(new Set(taken).size).toBe(40);
    expect(await jobs.countDocuments({ status: 'queued' })).toBe(0);
  });

  it('loses no update when many clients change one document at once', async () => {
    const tallies = dbs[0]!.collection('tallies');
    await tallies.insertOne({ _id: 't' as never, n: 0, seen: [] });
    await race(150, (db, n) => db.collection('tallies').updateOne({ _id: 't' as never }, { $inc: { n: 1 }, $push: { seen: n } as never }));
    const tally = await tallies.findOne({ _id: 't' as never });
    expect(tally!.n).toBe(150);
    expect(new Set(tally!.seen as number[]).size).toBe(150);
  });

  it('never brings a deleted document back through a racing update, and creates one only once by upsert', async () => {
    const docs = dbs[0]!.collection('mortal');
    await docs.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `m${n}` as never, n: 0 })));
    // Each document gets two updates and two deletes, interleaved.
    await race(200, async (db, n) => {
      const _id = `m${Math.floor(n / 4) % 50}` as never;
      if (n % 2) await db.collection('mortal').deleteOne({ _id });
      else await db.collection('mortal').updateOne({ _id }, { $inc: { n: 1 } });
    });
    expect(await docs.countDocuments({ _id: { $in: Array.from({ length: 50 }, (_, n) => `m${n}`) } as never })).toBe(0);

    const upserts = await race(60, (db) =>
      db.collection('mortal').updateOne({ _id: 'once' as never }, { $inc: { n: 1 } }, { upsert: true }),
    );
    expect(upserts.filter((r) => r.upsertedCount === 1)).toHaveLength(1);
    expect(await docs.findOne({ _id: 'once' as never })).toMatchObject({ n: 60 });
  });

  it('stores one of many racing inserts of a unique value, and refuses an update that would break it with 11000', async () => {
    const people = dbs[0]!.collection('people');
    await people.createIndex({ email: 1 }, { unique: true });
    const inserts = await race(40, (db, n) =>
      db
        .collection('people')
        .insertOne({ _id: `p${n}` as never, email: 'ada@x.test' })
        .then(() => 'stored')
        .catch((error: { code?: number }) => error.code),
    );
    expect(inserts.filter((r) => r === 'stored')).toHaveLength(1);
    expect(inserts.filter((r) => r === 11000)).toHaveLength(39);

    await people.insertOne({ _id: 'other' as never, email: 'bob@x.test' });
    await expect(people.updateOne({ _id: 'other' as never }, { $set: { email: 'ada@x.test' } })).rejects.toMatchObject({ code: 11000 });
  });
});
