import { MongoClient, type Collection, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSyncCountingFerretDb } from '../support/sync-counting-ferretdb.ts';

/**
 * The embedded store answers a write with `writeConcern: { j: true }` only once its SQLite log is synced, as
 * MongoDB answers it once it is in the on-disk journal; other writes never wait for a sync (the log is synced at
 * checkpoints, which this FerretDB does not run). Counted with strace: every fsync/fdatasync FerretDB makes.
 */
describe('journaled writes on the embedded store', () => {
  const ferretDb = useSyncCountingFerretDb();
  let client: MongoClient;
  let db: Db;
  const journal = { writeConcern: { journal: true } };
  const docs = () => db.collection<{ _id: string; n: number; tag?: string }>('docs');

  beforeAll(async () => {
    client = await MongoClient.connect(`${ferretDb.server}/journaled`);
    db = client.db();
    await docs().createIndex({ tag: 1 }, { unique: true, sparse: true });
    await docs().insertMany(Array.from({ length: 20 }, (_, n) => ({ _id: `d${n}`, n })));
  });
  afterAll(() => client?.close());

  /** The syncs the calls make, made one after another. */
  async function syncsOf(times: number, call: (n: number) => Promise<unknown>): Promise<number> {
    const before = ferretDb.syncs();
    for (let n = 0; n < times; n++) await call(n);
    return ferretDb.syncs() - before;
  }

  /** A write of document number n (dn for those there before). */
  type Write = (c: Collection<{ _id: string; n: number; tag?: string }>, n: number, options: object) => Promise<unknown>;
  const writes: Record<string, Write> = {
    insert: (c, n, options) => c.insertOne({ _id: `i${n}`, n }, options),
    'update (one statement)': (c, n, options) => c.updateOne({ _id: `d${n}` }, { $inc: { n: 1 } }, options),
    'update (many documents)': (c, n, options) => c.updateMany({ n: { $gte: 0 } }, { $set: { at: n } }, options),
    // A bulk of updateOnes by string _id: one read and one transaction for all (patch 13).
    'update (a bulk by _id)': (c, n, options) =>
      c.bulkWrite(
        [0, 1, 2].map((k) => ({ updateOne: { filter: { _id: `d${k}` }, update: { $set: { bulk: n } } } })),
        options,
      ),
    findAndModify: (c, n, options) => c.findOneAndUpdate({ _id: `d${n}` }, { $inc: { n: 1 } }, options),
    delete: (c, n, options) => c.deleteOne({ _id: `d${n}` }, options),
  };

  for (const [name, write] of Object.entries(writes)) {
    it(`syncs the log for each ${name} with j: true, and for none without`, async () => {
      // Documents d0–d4, then d10–d14: each write changes something, so each commits.
      expect(await syncsOf(5, (n) => write(docs(), n, {}))).toBe(0);
      expect(await syncsOf(5, (n) => write(docs(), n + 10, journal))).toBeGreaterThanOrEqual(5);
    });
  }

  it('syncs what a journaled insert stored when part of it is refused (each document then goes alone)', async () => {
    await docs().insertOne({ _id: 'taken', n: 0, tag: 'taken' });
    const before = ferretDb.syncs();
    const refused = await docs()
      .insertMany(
        [
          { _id: 'new1', n: 1, tag: 'new1' },
          { _id: 'new2', n: 2, tag: 'taken' },
          { _id: 'new3', n: 3, tag: 'new3' },
        ],
        { ordered: false, ...journal },
      )
      .catch((error: { code?: number }) => error);
    expect(refused).toMatchObject({ code: 11000 });
    expect(ferretDb.syncs()).toBeGreaterThan(before);
    expect(await docs().countDocuments({ _id: { $in: ['new1', 'new2', 'new3'] } })).toBe(2);
  });

  it('reads j as MongoDB does: true or a number other than 0 asks for the sync, false or 0 does not', async () => {
    const update = (j: unknown) => () =>
      db.command({ update: 'docs', updates: [{ q: { _id: 'd5' }, u: { $inc: { n: 1 } } }], writeConcern: { j } });
    expect(await syncsOf(3, update(false))).toBe(0);
    expect(await syncsOf(3, update(0))).toBe(0);
    expect(await syncsOf(3, update(1))).toBeGreaterThanOrEqual(3);
    expect(await syncsOf(3, update(true))).toBeGreaterThanOrEqual(3);
  });
});
