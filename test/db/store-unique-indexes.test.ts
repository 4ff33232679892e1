import {
  BSONRegExp,
  Binary,
  Double,
  Int32,
  Long,
  MongoClient,
  ObjectId,
  Timestamp,
  type Collection,
  type Db,
  type Document,
} from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';
import { copy, wholeCollection } from '../support/store-corpus.ts';
import { outcome } from '../support/unique-writes.ts';

/**
 * Unique indexes on the embedded store hold MongoDB's rule, case by case: values MongoDB compares equal collide
 * (numbers across int, long and double; a missing field and null, which MongoDB indexes alike:
 * https://www.mongodb.com/docs/manual/core/index-unique/), values of different
 * BSON types never do (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/). FerretDB as
 * published is wrong in some of these cases; each names what it does. (It also answers an update that breaks a
 * unique index, and a unique index it cannot build, with an internal error where MongoDB answers E11000.) store-differential-unique.test.ts
 * generates writes over the values both builds are meant to agree on.
 */
describe('unique indexes on the embedded store, as MongoDB', () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
  });
  afterAll(() => client.close());

  let collections = 0;
  const fresh = () => db.collection(`unique_${collections++}`);
  const missing = Symbol('missing');
  const withU = (_id: number, value: unknown): Document => (value === missing ? { _id } : { _id, u: value });

  // [case, first value of u, second value of u, whether MongoDB refuses the second]
  const pairs: Array<[string, unknown, unknown, boolean]> = [
    // FerretDB as published refuses this one; the patched build took both before issue 31.
    ['null and null', null, null, true],
    // FerretDB as published takes both (SQLite's unique indexes hold NULLs apart), and the patched build did.
    ['null and a missing field', null, missing, true],
    ['a missing field and null', missing, null, true],
    ['two missing fields', missing, missing, true],
    ['int 5 and long 5', new Int32(5), Long.fromNumber(5), true],
    ['int 5 and double 5', new Int32(5), new Double(5), true],
    ['long 5 and double 5', Long.fromNumber(5), new Double(5), true],
    ['int 0 and double -0', new Int32(0), new Double(-0), true],
    ['long 2^53 and double 2^53', Long.fromString('9007199254740992'), new Double(2 ** 53), true],
    // FerretDB as published takes both: it compares the JSON texts, and writes these two apart.
    ['long -2^63 and double -2^63', Long.MIN_VALUE, new Double(-(2 ** 63)), true],
    ['one string twice', 'x', 'x', true],
    ['one date twice', new Date(5), new Date(5), true],
    ['one ObjectId twice', new ObjectId('650000000000000000000001'), new ObjectId('650000000000000000000001'), true],
    ['documents equal field by field', { a: new Int32(1) }, { a: Long.fromNumber(1) }, true],
    ['one regular expression twice', new BSONRegExp('ab', 'i'), new BSONRegExp('ab', 'i'), true],
    // An array puts each of its elements in the index (a multikey index), and a unique index refuses another document
    // holding one of them (https://www.mongodb.com/docs/manual/core/index-multikey/, "Unique Multikey Index"). FerretDB
    // as published indexes an array as one value, and takes both in these two cases, as the patched build does.
    ['an array and one of its elements', [new Int32(1), new Int32(2)], new Int32(1), true],
    ['arrays sharing an element', [new Int32(1), new Int32(2)], [new Int32(2), new Int32(3)], true],
    // An empty array is indexed as undefined (src/mongo/db/index/btree_key_generator.cpp), a value of its own type;
    // an array holding null has the key null, a missing field's. One document may repeat a key.
    ['two empty arrays', [], [], true],
    ['an empty array and null', [], null, false],
    ['an array holding null and a missing field', [null], missing, true],
    ['an array repeating an element, and another value', ['a', 'a'], 'b', false],
    ['arrays sharing numbers of other types', [Long.fromNumber(7), 'x'], [new Double(7)], true],
    // An element is keyed as the same value alone would be: a document, a regular expression with its flags, binary
    // data with its subtype.
    ['a document in an array and alone', [{ k: 'a' }], { k: 'a' }, true],
    ['a regular expression in an array and alone', [new BSONRegExp('ab', 'i')], new BSONRegExp('ab', 'i'), true],
    ['regular expressions of other flags in an array and alone', [new BSONRegExp('ab', 'i')], new BSONRegExp('ab', ''), false],
    ['binary data in an array and alone', [new Binary(Buffer.from('hi'), 4)], new Binary(Buffer.from('hi'), 4), true],
    ['binary data of two subtypes in an array and alone', [new Binary(Buffer.from('hi'), 0)], new Binary(Buffer.from('hi'), 4), false],
    // FerretDB as published refuses the next four: it writes both values as the same JSON (a date as its milliseconds,
    // an ObjectId as its hex string, a regular expression as its pattern, binary data as its base64).
    ['a date and the number of its milliseconds', new Date(1000), Long.fromNumber(1000), false],
    ['an ObjectId and its hex string', new ObjectId('650000000000000000000001'), '650000000000000000000001', false],
    ['a regular expression and its pattern as a string', new BSONRegExp('ab', 'i'), 'ab', false],
    ['binary data and its base64 as a string', new Binary(Buffer.from('hi')), 'aGk=', false],
    ['a timestamp and a number', new Timestamp({ t: 0, i: 7 }), new Int32(7), false],
    // MongoDB compares regular expressions by pattern, then flags (src/mongo/bson/bsonelement.cpp, compareElementValues),
    // binary data by length, subtype, then bytes (bson-type-comparison-order#bindata); both builds refuse these two.
    ['one pattern with other flags', new BSONRegExp('ab', 'i'), new BSONRegExp('ab', ''), false],
    ['binary data of two subtypes', new Binary(Buffer.from('hi'), 0), new Binary(Buffer.from('hi'), 4), false],
    // Both builds refuse this one: they compare a document's JSON text, where a date is its milliseconds.
    ['documents holding a date and its milliseconds', { a: new Date(5) }, { a: new Int32(5) }, false],
    ['documents with their fields in another order', { a: new Int32(1), b: new Int32(2) }, { b: new Int32(2), a: new Int32(1) }, false],
    // Both builds compared a double by its shortest digits, which for 2^60 are 1152921504606847000: they took the
    // first pair and refused the second.
    ['long 2^60 and double 2^60', Long.fromString('1152921504606846976'), new Double(2 ** 60), true],
    ['double 2^60 and the long of its shortest digits', new Double(2 ** 60), Long.fromString('1152921504606847000'), false],
    ['long 2^63-1 and double 2^63', Long.MAX_VALUE, new Double(2 ** 63), false],
    ['long 2^53+1 and double 2^53', Long.fromString('9007199254740993'), new Double(2 ** 53), false],
    ['true and 1', true, new Int32(1), false],
    ['"5" and 5', '5', new Int32(5), false],
  ];

  it.each(pairs)('%s: refused on insert, and an index over both refused, where MongoDB refuses them', async (_, first, second, refuses) => {
    const inserted = fresh();
    await inserted.createIndex({ u: 1 }, { unique: true });
    await inserted.insertOne(copy(withU(1, first)));
    expect(await outcome(async () => (await inserted.insertOne(copy(withU(2, second)))).acknowledged)).toEqual(
      refuses ? { error: 11000 } : true,
    );
    expect(await inserted.countDocuments()).toBe(refuses ? 1 : 2);

    const indexedLater = fresh();
    await indexedLater.insertMany([copy(withU(1, first)), copy(withU(2, second))]);
    expect(await outcome(() => indexedLater.createIndex({ u: 1 }, { unique: true }))).toEqual(refuses ? { error: 11000 } : 'u_1');
  });

  it.each([
    ['a missing field and null in the second field', { v: 1 }, { v: 1, w: null }, true],
    ['no fields at all, twice', {}, {}, true],
    ['one field apart', { v: 1, w: 1 }, { v: 1, w: 2 }, false],
    ['the same values in other fields', { v: 1, w: 2 }, { v: 2, w: 1 }, false],
  ])('a compound unique index: %s', async (_, first, second, refuses) => {
    const collection = fresh();
    await collection.createIndex({ v: 1, w: 1 }, { unique: true });
    await collection.insertOne({ _id: 1 as never, ...first });
    expect(await outcome(async () => (await collection.insertOne({ _id: 2 as never, ...second })).acknowledged)).toEqual(
      refuses ? { error: 11000 } : true,
    );
  });

  // A compound index keys a document holding an array in one of its fields by element, beside its other fields'
  // values; a document holding arrays in two of its fields is refused, "cannot index parallel arrays" (code 171;
  // https://www.mongodb.com/docs/manual/core/index-multikey/, "Compound Multikey Indexes"). FerretDB as published
  // indexes an array as one value, and takes all of these.
  it.each([
    ['an array sharing an element, beside the same value', { v: [1, 2], w: 'x' }, { v: 2, w: 'x' }, { error: 11000 }],
    ['an array sharing an element, beside another value', { v: [1, 2], w: 'x' }, { v: 2, w: 'y' }, true],
    ['arrays in the second field sharing an element', { v: 1, w: ['x', 'y'] }, { v: 1, w: ['y', 'z'] }, { error: 11000 }],
    ['arrays in both fields of the second document', { v: 1, w: 'x' }, { v: [2], w: ['y'] }, { error: 171 }],
    ['empty arrays in both fields of the second document', { v: 1, w: 'x' }, { v: [], w: [] }, { error: 171 }],
  ])('a compound unique index over arrays: %s, on insert and when the index is created', async (_, first, second, answer) => {
    const collection = fresh();
    await collection.createIndex({ v: 1, w: 1 }, { unique: true });
    await collection.insertOne({ _id: 1 as never, ...first });
    expect(await outcome(async () => (await collection.insertOne({ _id: 2 as never, ...second })).acknowledged)).toEqual(answer);

    const indexedLater = fresh();
    await indexedLater.insertMany([
      { _id: 1 as never, ...first },
      { _id: 2 as never, ...second },
    ]);
    expect(await outcome(() => indexedLater.createIndex({ v: 1, w: 1 }, { unique: true }))).toEqual(answer === true ? 'v_1_w_1' : answer);
    expect((await indexedLater.listIndexes().toArray()).map((index) => index.name)).toEqual(
      answer === true ? ['_id_', 'v_1_w_1'] : ['_id_'],
    );
  });

  it.each<[string, (collection: Collection) => Promise<unknown>]>([
    ['updateOne', (c) => c.updateOne({ _id: 'a' as never }, { $set: { v: [new Int32(3)] } })],
    ['findOneAndUpdate', (c) => c.findOneAndUpdate({ _id: 'a' as never }, { $set: { v: [] } })],
    ['replaceOne', (c) => c.replaceOne({ _id: 'b' as never }, { v: [new Int32(5)], w: ['y'] })],
    ['an upsert', (c) => c.updateOne({ _id: 'new' as never }, { $set: { v: [new Int32(1)], w: [new Int32(2)] } }, { upsert: true })],
  ])('refuses parallel arrays in a compound unique index brought by %s, and changes nothing', async (_, write) => {
    const collection = fresh();
    await collection.createIndex({ v: 1, w: 1 }, { unique: true });
    await collection.insertMany([
      { _id: 'a', v: new Int32(1), w: ['x'] },
      { _id: 'b', v: new Int32(5), w: 'z' },
    ] as Document[]);
    const before = await wholeCollection(collection);
    expect(await outcome(() => write(collection))).toMatchObject({ error: 171 });
    expect(await wholeCollection(collection)).toEqual(before);
  });

  // A sparse index leaves out documents missing its field, so many may miss it; null is indexed and collides
  // (https://www.mongodb.com/docs/manual/core/index-sparse/, "sparse and unique Properties"). FerretDB 1.24 accepts the
  // option and keeps no sparse index: treating a missing field as null must not reach these.
  it.each([
    ['two missing fields', missing, missing, false],
    ['null and a missing field', null, missing, false],
    ['null and null', null, null, true],
  ])('a sparse unique index: %s', async (_, first, second, refuses) => {
    const collection = fresh();
    await collection.createIndex({ u: 1 }, { unique: true, sparse: true });
    await collection.insertOne(withU(1, first));
    expect(await outcome(async () => (await collection.insertOne(withU(2, second))).acknowledged)).toEqual(
      refuses ? { error: 11000 } : true,
    );
  });

  /** A collection whose unique index holds 5, a document missing the field, and others a write may collide with. */
  async function stocked() {
    const collection = fresh();
    await collection.createIndex({ u: 1 }, { unique: true });
    await collection.insertMany([
      { _id: 'five', u: new Int32(5) },
      { _id: 'none' },
      { _id: 'text', u: 'x' },
      { _id: 'four', u: new Double(4) },
    ] as Document[]);
    return collection;
  }

  // Every way a write can bring a second missing field, a null or an equal number into a unique index: each refused
  // with E11000 and nothing changed.
  it.each<[string, (collection: Collection) => Promise<unknown>]>([
    ['an insert missing the field', (c) => c.insertOne({ _id: 'new' as never })],
    ['an insert of null', (c) => c.insertOne({ _id: 'new' as never, u: null })],
    ['an insert of 5 as a double', (c) => c.insertOne({ _id: 'new' as never, u: new Double(5) })],
    ['$unset', (c) => c.updateOne({ _id: 'text' as never }, { $unset: { u: '' } })],
    ['$set of null', (c) => c.updateOne({ _id: 'text' as never }, { $set: { u: null } })],
    ['$rename away', (c) => c.updateOne({ _id: 'text' as never }, { $rename: { u: 'was' } })],
    ['$set of 5 as a long', (c) => c.updateOne({ _id: 'text' as never }, { $set: { u: Long.fromNumber(5) } })],
    ['$inc to 5', (c) => c.updateOne({ _id: 'four' as never }, { $inc: { u: new Int32(1) } })],
    ['replaceOne without the field', (c) => c.replaceOne({ _id: 'text' as never }, { other: 1 })],
    ['an upsert inserting no value', (c) => c.updateOne({ _id: 'new' as never }, { $set: { other: 1 } }, { upsert: true })],
    [
      'an upsert inserting 5 as a double',
      (c) => c.updateOne({ _id: 'new' as never, u: new Double(5) }, { $set: { other: 1 } }, { upsert: true }),
    ],
    ['findOneAndUpdate with $unset', (c) => c.findOneAndUpdate({ _id: 'text' as never }, { $unset: { u: '' } })],
    ['updateMany with $unset', (c) => c.updateMany({ _id: { $in: ['text'] } as never }, { $unset: { u: '' } })],
    [
      'a bulk write of updates by _id',
      (c) => c.bulkWrite([{ updateOne: { filter: { _id: 'text' as never }, update: { $unset: { u: '' } } } }]),
    ],
  ])('refuses %s where it brings a duplicate, and changes nothing', async (_, write) => {
    const collection = await stocked();
    const before = await wholeCollection(collection);
    expect(await outcome(() => write(collection))).toMatchObject({ error: 11000 });
    expect(await wholeCollection(collection)).toEqual(before);
  });

  it.each([
    [true, { error: 11000, refused: [[1, 11000]] }, ['a', 'five', 'four', 'none', 'text']],
    [false, { error: 11000, refused: [[1, 11000]] }, ['a', 'c', 'five', 'four', 'none', 'text']],
  ])('an insertMany (ordered: %s) refuses the document missing the field, and no other', async (ordered, answer, ids) => {
    const collection = await stocked();
    const docs = [{ _id: 'a', u: 'a' }, { _id: 'b' }, { _id: 'c', u: 'c' }] as Document[];
    expect(await outcome(() => collection.insertMany(docs, { ordered }))).toEqual(answer);
    expect((await collection.find({}, { sort: { _id: 1 } }).toArray()).map((doc) => doc._id)).toEqual(ids);
  });

  // An unordered bulk write goes on past a refused write and names it
  // (https://www.mongodb.com/docs/manual/reference/method/db.collection.bulkWrite/, `ordered`). FerretDB
  // 1.24's update command ignores `ordered` (FerretDB#2612): it stops there and names the first statement, both builds.
  it('an unordered bulk write of updates refuses the duplicate, names it, and applies the rest', async () => {
    const collection = await stocked();
    const result = await outcome(() =>
      collection.bulkWrite(
        [
          { updateOne: { filter: { _id: 'five' as never }, update: { $set: { tag: 1 } } } },
          { updateOne: { filter: { _id: 'text' as never }, update: { $unset: { u: '' } } } },
          { updateOne: { filter: { _id: 'four' as never }, update: { $set: { tag: 3 } } } },
        ],
        { ordered: false },
      ),
    );
    expect(result).toEqual({ error: 11000, refused: [[1, 11000]] });
    expect(await collection.countDocuments({ tag: { $exists: true } })).toBe(2);
  });
});
