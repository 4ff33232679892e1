import { MongoClient, type Db, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * The embedded store answers queries on indexed fields from the indexes the models declare,
 * as MongoDB does: equality, $in and ranges seek the index, a sort on it stops at the limit,
 * a substring search is done by SQLite. What SQLite does is what `explain` shows.
 */
describe('indexed queries on the embedded store', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
    const leads = db.collection('leads');
    await leads.createIndex({ workspaceId: 1, archivedAt: 1, createdAt: -1 });
    await leads.createIndex({ score: 1 });
    await leads.createIndex({ email: 1 }, { unique: true });
    await leads.insertMany(
      Array.from({ length: 600 }, (_, n) => ({
        _id: `lead-${n}` as never,
        workspaceId: `ws-${n % 3}`,
        archivedAt: n % 5 ? null : new Date(1_600_000_000_000),
        createdAt: new Date(1_700_000_000_000 + n * 60_000),
        email: `person${n}@acme${n % 7}.test`,
        score: n % 101,
        searchText: `person ${n} acme ${n % 7} ${n % 2 ? 'Sales' : 'Engineering'}`,
      })),
    );
  });
  afterAll(() => client.close());

  const explain = async (find: Document) => (await db.command({ explain: { find: 'leads', ...find } })) as Document;
  const plan = (answer: Document) => JSON.stringify(answer.queryPlanner);

  it.each([
    ['equality on a declared index', { filter: { email: 'person7@acme0.test' } }],
    ['equality on the leading fields of a compound index', { filter: { workspaceId: 'ws-1', archivedAt: null } }],
    ['$in', { filter: { workspaceId: { $in: ['ws-1', 'ws-2'] } } }],
    ['a range on a number', { filter: { score: { $gte: 40, $lt: 45 } } }],
    ['a range on a date', { filter: { workspaceId: 'ws-0', archivedAt: null, createdAt: { $gte: new Date(1_700_010_000_000) } } }],
    ['_id', { filter: { _id: 'lead-5' } }],
  ])('seeks the index for %s', async (_, find) => {
    const answer = await explain(find);
    expect(answer.filterPushdown).toBe(true);
    expect(plan(answer)).toMatch(/SEARCH .* USING (INDEX|COVERING INDEX)/);
    expect(plan(answer)).not.toMatch(/detail=SCAN/);
  });

  it('answers the same documents the filter matches', async () => {
    const leads = db.collection('leads');
    expect(await leads.countDocuments({ score: { $gte: 40, $lt: 45 } })).toBe(30);
    expect(await leads.countDocuments({ workspaceId: 'ws-1', archivedAt: null })).toBe(160);
    expect((await leads.find({ workspaceId: { $in: ['ws-1', 'ws-2'] } }).toArray()).every((lead) => lead.workspaceId !== 'ws-0')).toBe(
      true,
    );
  });

  it('orders by the index and stops at the limit, newest first', async () => {
    const find = { filter: { workspaceId: 'ws-2', archivedAt: null }, sort: { createdAt: -1 as const }, limit: 5 };
    const answer = await explain(find);
    expect(answer.sortPushdown).toBe(true);
    expect(plan(answer)).not.toContain('TEMP B-TREE');
    const newest = await db.collection('leads').find(find.filter, { sort: find.sort, limit: find.limit }).toArray();
    const expected = Array.from({ length: 600 }, (_, n) => 599 - n).filter((n) => n % 3 === 2 && n % 5 !== 0);
    expect(newest.map((lead) => lead._id)).toEqual(expected.slice(0, 5).map((n) => `lead-${n}`));
  });

  it('does a substring search, case-insensitive too, in SQLite', async () => {
    const answer = await explain({ filter: { workspaceId: 'ws-0', searchText: { $regex: 'sales', $options: 'i' } } });
    expect(answer.filterPushdown).toBe(true);
    expect(await db.collection('leads').countDocuments({ searchText: { $regex: 'SALES', $options: 'i' } })).toBe(300);
    expect(await db.collection('leads').countDocuments({ searchText: { $regex: 'acme 3 sales' } })).toBe(0);
    expect(await db.collection('leads').countDocuments({ searchText: { $regex: 'acme 3 Sales' } })).toBe(43);
  });

  it('still sorts right once a field holds an array, by leaving that sort to FerretDB', async () => {
    const odd = db.collection('odd_scores');
    await odd.createIndex({ score: 1 });
    await odd.insertMany([
      { _id: 'a' as never, score: 5 },
      { _id: 'b' as never, score: [9, 1] },
      { _id: 'c' as never, score: 3 },
    ]);
    expect((await db.command({ explain: { find: 'odd_scores', sort: { score: 1 } } })).sortPushdown).toBe(false);
    // An array sorts by its smallest element ascending.
    expect((await odd.find({}, { sort: { score: 1 } }).toArray()).map((doc) => doc._id)).toEqual(['b', 'c', 'a']);
    expect(await odd.countDocuments({ score: 9 })).toBe(1);
  });
});

describe('the embedded FerretDB', () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
  });
  afterAll(() => client.close());

  /** The store's plan for a find; a real find first, since SQLite re-reads a changed schema when it runs a statement, not when it explains one. */
  async function planOf(collection: string, filter: Record<string, unknown>) {
    await db.collection(collection).findOne(filter);
    return JSON.stringify((await db.command({ explain: { find: collection, filter } })).queryPlanner);
  }

  it('answers a lookup by _id from an index, in a collection created after it started', async () => {
    const collection = db.collection<{ _id: string; n: number }>('id_index_probe');
    await collection.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `doc-${n}`, n })));
    expect(await planOf('id_index_probe', { _id: 'doc-7' })).toContain('USING INDEX');
    expect(await planOf('id_index_probe', { n: 7 })).toContain('SCAN');
    expect(await collection.findOne({ _id: 'doc-7' })).toEqual({ _id: 'doc-7', n: 7 });
  });

  it('takes writes in a collection dropped and made again, with other indexes, and answers from them', async () => {
    const first = db.collection<{ _id: string; team: string; n: number }>('remade');
    await first.createIndex({ team: 1 });
    await first.insertMany(Array.from({ length: 20 }, (_, n) => ({ _id: `a-${n}`, team: `t-${n % 2}`, n })));
    await first.updateOne({ _id: 'a-1' }, { $set: { team: 't-9' } });
    await first.drop();

    const again = db.collection<{ _id: string; team: string; n: number }>('remade');
    await again.insertMany(Array.from({ length: 20 }, (_, n) => ({ _id: `b-${n}`, team: `t-${n % 4}`, n })));
    await again.updateOne({ _id: 'b-1' }, { $set: { team: 't-9' } });
    await again.createIndex({ n: 1 });
    await again.updateMany({ n: { $gte: 10 } }, { $inc: { n: 100 } });
    expect(await again.countDocuments({ team: 't-9' })).toBe(1);
    expect(await again.countDocuments({ n: { $gte: 100 } })).toBe(10);
    expect(await planOf('remade', { n: 115 })).toContain('USING INDEX');
    expect(await again.findOne({ n: 115 })).toEqual({ _id: 'b-15', team: 't-3', n: 115 });
  });

  it('refuses a unique index the stored documents break with 11000, as MongoDB does, leaving the collection as it was', async () => {
    const people = db.collection<{ _id: string; email: string }>('unique_late');
    await people.insertMany([
      { _id: 'a', email: 'same@example.test' },
      { _id: 'b', email: 'same@example.test' },
    ]);
    await expect(people.createIndex({ email: 1 }, { unique: true })).rejects.toMatchObject({ code: 11000 });
    expect((await people.indexes()).map((index) => index.name)).toEqual(['_id_']);
    await people.insertOne({ _id: 'c', email: 'same@example.test' });
    expect(await people.countDocuments({ email: 'same@example.test' })).toBe(3);
  });
});
