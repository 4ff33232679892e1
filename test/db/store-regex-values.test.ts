import { BSONRegExp, MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * A field may hold a regular expression. A regular-expression query matches a string it finds, and a stored regular
 * expression with the same pattern and the same flags (MongoDB's RegexMatchExpression::matchesSingleElement,
 * src/mongo/db/matcher/expression_leaf.cpp); `$eq` with a regular expression matches only a stored one equal to it
 * (https://www.mongodb.com/docs/manual/reference/operator/query/eq/, "Regex Match Behavior"); a query on a field
 * holding an array matches when an element matches. Finds and both counts answer so, with and without an index on
 * the field (the patched store answers indexed and plain-text regular expressions from SQL).
 */
describe('regular expressions stored as values on the embedded store, as MongoDB', () => {
  let client: MongoClient;
  let db: Db;
  const docs: Document[] = [
    { _id: 1, r: new BSONRegExp('ab', 'i'), n: 1 },
    { _id: 2, r: new BSONRegExp('ab', ''), n: 2 },
    { _id: 3, r: 'ab', n: 3 },
    { _id: 4, r: 'xABx', n: 4 },
    { _id: 5, r: new BSONRegExp('^a', 'm'), n: 5 },
    { _id: 7, n: 7 },
    { _id: 8, r: null, n: 8 },
  ];

  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
    for (const indexed of [false, true]) {
      const collection = db.collection(indexed ? 'indexed' : 'plain');
      if (indexed) await collection.createIndex({ r: 1 });
      await collection.insertMany(docs.map((doc) => ({ ...doc })));
    }
    await db.collection('arrays').insertMany(arrays.map((doc) => ({ ...doc })));
  });
  afterAll(() => client.close());

  // A query matches an array when an element matches (a regular expression inside one too). Both FerretDB builds
  // match a regular-expression query against an array's strings only.
  const arrays: Document[] = [
    { _id: 1, r: [new BSONRegExp('ab', 'i'), 'z'] },
    { _id: 2, r: ['ab'] },
    { _id: 3, r: [new BSONRegExp('ab', ''), 'q'] },
  ];

  const cases: Array<[string, Document, number[]]> = [
    ['a regular expression', { r: new BSONRegExp('ab', 'i') }, [1, 3, 4]],
    ['$regex with $options', { r: { $regex: 'ab', $options: 'i' } }, [1, 3, 4]],
    ['a regular expression without flags', { r: new BSONRegExp('ab', '') }, [2, 3]],
    ['$regex without flags', { r: { $regex: 'ab' } }, [2, 3]],
    ['$regex beside a range', { r: { $regex: 'ab' }, n: { $gte: 0 } }, [2, 3]],
    ['an anchored multi-line regular expression', { r: new BSONRegExp('^a', 'm') }, [3, 5]],
    ['$eq of a regular expression', { r: { $eq: new BSONRegExp('ab', 'i') } }, [1]],
    ['$eq of a regular expression without flags', { r: { $eq: new BSONRegExp('ab', '') } }, [2]],
    ['$in of a regular expression', { r: { $in: [new BSONRegExp('ab', 'i')] } }, [1, 3, 4]],
    ['$in of a regular expression and a string', { r: { $in: [new BSONRegExp('ab', ''), 'zz'] } }, [2, 3]],
    ['$nin of a regular expression', { r: { $nin: [new BSONRegExp('ab', '')] } }, [1, 4, 5, 7, 8]],
    ['$not of a regular expression', { r: { $not: new BSONRegExp('ab', 'i') } }, [2, 5, 7, 8]],
    ['$type regex', { r: { $type: 'regex' } }, [1, 2, 5]],
  ];

  describe.each(['plain', 'indexed'])('on a %s field', (name) => {
    const collection = () => db.collection(name);
    const ids = async (found: Collection, query: Document) => (await found.find(query).toArray()).map((doc) => doc._id).sort();

    it.each(cases)('%s finds and counts what MongoDB does', async (_, query, expected) => {
      expect(await ids(collection(), query)).toEqual(expected);
      expect(await collection().countDocuments(query)).toBe(expected.length);
      expect((await db.command({ count: name, query })).n).toBe(expected.length);
    });

    // Regular expressions sort after strings, by pattern, then flags (src/mongo/bson/bsonelement.cpp,
    // compareElementValues). Both FerretDB builds order them by the text Go's regexp package gives them ("(?i)ab"
    // before "(?m)^a" before "ab").
    it.each([
      [1, [7, 8, 3, 4, 5, 2, 1]],
      [-1, [1, 2, 5, 4, 3, 7, 8]],
    ] as const)('sorts by the field (%i) as MongoDB does', async (order, expected) => {
      expect(
        (
          await collection()
            .find({}, { sort: { r: order, _id: 1 } })
            .toArray()
        ).map((doc) => doc._id),
      ).toEqual(expected);
    });
  });

  it.each<[string, Document, number[]]>([
    ['a regular expression', { r: new BSONRegExp('ab', 'i') }, [1, 2]],
    ['a regular expression without flags', { r: new BSONRegExp('ab', '') }, [2, 3]],
    ['$in of a regular expression', { r: { $in: [new BSONRegExp('ab', 'i')] } }, [1, 2]],
    ['$not of a regular expression', { r: { $not: new BSONRegExp('ab', 'i') } }, [3]],
    ['$eq of a regular expression', { r: { $eq: new BSONRegExp('ab', 'i') } }, [1]],
  ])('%s matches an array holding an equal regular expression, as MongoDB does', async (_, query, expected) => {
    expect((await db.collection('arrays').find(query).toArray()).map((doc) => doc._id).sort()).toEqual(expected);
    expect(await db.collection('arrays').countDocuments(query)).toBe(expected.length);
  });
});
