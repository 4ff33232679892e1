import { MongoClient, type AnyBulkWriteOperation, type Collection, type Db, type MongoBulkWriteError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * A bulk write on the embedded store answers as MongoDB's: an ordered one stops at the first statement refused, an
 * unordered one runs the rest, and either names each refused statement by its index
 * (https://www.mongodb.com/docs/manual/reference/method/db.collection.bulkWrite/, "ordered"), and each upserted
 * document by its statement's. FerretDB 1.24's update command ignored `ordered` (FerretDB#2612), stopped at the
 * first refused statement naming the first one, and numbered upserts by their count; its insert and delete
 * commands answered as MongoDB.
 */
describe('bulk writes on the embedded store, ordered and unordered, as MongoDB', () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
  });
  afterAll(() => client.close());

  let collections = 0;
  async function stocked(): Promise<Collection> {
    const collection = db.collection(`bulk_${collections++}`);
    await collection.insertMany(['a', 'b', 'c', 'd', 'e'].map((_id, n) => ({ _id: _id as never, n, text: `t${n}` })));
    return collection;
  }

  /** The counts of a bulk write, the statements it refused (index, code) and the ids left. */
  async function run(collection: Collection, operations: AnyBulkWriteOperation[], ordered: boolean) {
    let refused: Array<[number, number]> = [];
    let result;
    try {
      result = await collection.bulkWrite(operations, { ordered });
    } catch (error) {
      const { writeErrors } = error as MongoBulkWriteError;
      refused = (Array.isArray(writeErrors) ? writeErrors : [writeErrors]).map((we) => [we.index, we.code]);
      result = (error as MongoBulkWriteError).result;
    }
    const { matchedCount, modifiedCount, insertedCount, deletedCount, upsertedIds } = result;
    const tagged = (await collection.find({ tag: true }, { sort: { _id: 1 } }).toArray()).map((doc) => doc._id);
    const ids = (await collection.find({}, { sort: { _id: 1 } }).toArray()).map((doc) => doc._id);
    return { counts: { matchedCount, modifiedCount, insertedCount, deletedCount }, upsertedIds, refused, tagged, ids };
  }

  const tag = (_id: string) => ({ updateOne: { filter: { _id: _id as never }, update: { $set: { tag: true } } } });
  // Refused when it runs: $inc of a string (TypeMismatch, 14).
  const incText = (_id: string) => ({ updateOne: { filter: { _id: _id as never }, update: { $inc: { text: 1 } } } });
  // Refused before it runs: an update operator MongoDB does not know (FailedToParse, 9).
  const unknownOperator = (_id: string) => ({ updateOne: { filter: { _id: _id as never }, update: { $foo: { tag: true } } } });
  const all = ['a', 'b', 'c', 'd', 'e'];

  it.each([
    [
      false,
      { matchedCount: 3, modifiedCount: 3 },
      [
        [1, 14],
        [3, 14],
      ],
      ['a', 'c', 'e'],
    ],
    [true, { matchedCount: 1, modifiedCount: 1 }, [[1, 14]], ['a']],
  ])('updates refused when they run (ordered: %s)', async (ordered, counts, refused, tagged) => {
    const answer = await run(await stocked(), [tag('a'), incText('b'), tag('c'), incText('d'), tag('e')], ordered);
    expect(answer).toMatchObject({ counts, refused, tagged, ids: all });
  });

  it.each([
    [false, { matchedCount: 2, modifiedCount: 2 }, [[1, 9]], ['a', 'c']],
    [true, { matchedCount: 1, modifiedCount: 1 }, [[1, 9]], ['a']],
  ])('an update refused before it runs (ordered: %s)', async (ordered, counts, refused, tagged) => {
    const answer = await run(await stocked(), [tag('a'), unknownOperator('b'), tag('c')], ordered);
    expect(answer).toMatchObject({ counts, refused, tagged });
  });

  it('names each upserted document by its statement', async () => {
    const upsert = (_id: string) => ({ updateOne: { filter: { _id: _id as never }, update: { $set: { tag: true } }, upsert: true } });
    const answer = await run(await stocked(), [tag('a'), upsert('new1'), tag('b'), upsert('new2')], false);
    expect(answer).toMatchObject({ counts: { matchedCount: 2, modifiedCount: 2 }, upsertedIds: { 1: 'new1', 3: 'new2' }, refused: [] });
  });

  it.each([
    [
      false,
      3,
      [
        [1, 11000],
        [3, 11000],
      ],
      [...all, 'x', 'y', 'z'],
    ],
    [true, 1, [[1, 11000]], [...all, 'x']],
  ])('inserts of ids already there (ordered: %s)', async (ordered, insertedCount, refused, ids) => {
    const insert = (_id: string) => ({ insertOne: { document: { _id: _id as never } } });
    const answer = await run(await stocked(), [insert('x'), insert('a'), insert('y'), insert('b'), insert('z')], ordered);
    expect(answer).toMatchObject({ counts: { insertedCount }, refused, ids });
  });

  it.each([
    [false, 2, [[1, 2]], ['b', 'd', 'e']],
    [true, 1, [[1, 2]], ['b', 'c', 'd', 'e']],
  ])('deletes with a filter MongoDB refuses (ordered: %s)', async (ordered, deletedCount, refused, ids) => {
    const remove = (filter: object) => ({ deleteOne: { filter } });
    const answer = await run(await stocked(), [remove({ _id: 'a' }), remove({ n: { $foo: 1 } }), remove({ _id: 'c' })], ordered);
    expect(answer).toMatchObject({ counts: { deletedCount }, refused, ids });
  });
});
