import { Int32, type Collection, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  canonical,
  chance,
  copy,
  corpus,
  exactly,
  filter,
  find,
  indexes,
  oddValues,
  pick,
  runSeed,
  scalars,
  sort,
  streamOf,
  wholeCollection,
} from '../support/store-corpus.ts';
import { expectedFind, mongoDbFirst } from '../support/mongodb-order.ts';
import type { Random } from '../support/seeded-random.ts';
import { startStorePair, type StorePair } from '../support/store-pair.ts';

/**
 * The patch keeps typed columns and indexes for indexed fields and answers from them only while a field holds
 * values SQLite orders as FerretDB does. Updates that make an indexed field an array, a document or missing
 * (and back), an index created over a collection already holding such values, and a restart of both stores
 * on their folders must leave every find, sort and count as FerretDB as published answers it.
 */
describe('the patched embedded FerretDB against FerretDB as published, through writes that change what indexed fields hold', () => {
  const seed = runSeed('store-differential-writes');
  let stores: StorePair;

  beforeAll(async () => {
    stores = await startStorePair();
  }, 180_000);
  afterAll(() => stores?.stop());

  const pairOf = (name: string) => [stores.patched.collection(name), stores.published.collection(name)] as const;
  const fields = ['a', 'b', 's', 'd', 'moved'];

  /** A value of any shape: a scalar, an array (empty, of one, of two), a document, or an odd value. */
  const anyShape = (random: Random): unknown =>
    pick(random, [
      () => pick(random, scalars),
      () => pick(random, scalars),
      () => [pick(random, scalars), pick(random, scalars)],
      () => [pick(random, scalars)],
      () => [],
      () => ({ x: pick(random, scalars) }),
      () => pick(random, oddValues()),
    ])();

  /**
   * An update of one field. `total` ones apply to any document; the others refuse some (an $inc of a string), and a
   * multi-document update refused part way has changed the documents it came to first, in an order MongoDB leaves open.
   */
  function update(random: Random, total = false): Document {
    const field = pick(random, fields);
    const anyDocument = ['$set', '$set', '$unset', '$rename', '$min'];
    switch (pick(random, total ? anyDocument : [...anyDocument, '$push', '$addToSet', '$pop', '$inc', 'nested'])) {
      case '$set':
        return { $set: { [field]: anyShape(random) } };
      case '$unset':
        return { $unset: { [field]: '' } };
      case '$rename':
        return {
          $rename: {
            [field]: pick(
              random,
              fields.filter((other) => other !== field),
            ),
          },
        };
      case '$push':
        return { $push: { [field]: pick(random, scalars) } };
      case '$addToSet':
        return { $addToSet: { [field]: pick(random, scalars) } };
      case '$pop':
        return { $pop: { [field]: pick(random, [1, -1]) } };
      case '$inc':
        return { $inc: { [field]: new Int32(1) } };
      case '$min':
        return { $min: { [field]: pick(random, scalars) } };
      default:
        // A path into the field: a document is made where it was missing; a scalar refuses it.
        return { $set: { [`${field}.x`]: pick(random, scalars) } };
    }
  }

  function replacement(random: Random): Document {
    return Object.fromEntries(fields.filter(() => chance(random, 0.6)).map((field) => [field, anyShape(random)]));
  }

  /** A write drawn once and run on each store: on a document by _id, on a filter's matches, or an upsert. */
  function write(random: Random, ids: unknown[], n: number) {
    const query = filter(random, [...fields, '_id']);
    const _id = pick(random, ids);
    const kind = pick(random, ['one', 'one', 'many', 'replace', 'findAndModify', 'upsert']);
    const change = update(random, kind === 'many');
    const doc = replacement(random);
    const order: Record<string, 1 | -1> = { [pick(random, fields)]: pick(random, [1, -1] as const), _id: 1 };
    // An upsert names the _id it makes: one the server chose would differ between the stores.
    const upsertFilter = { _id: `u${n}`, [pick(random, fields)]: pick(random, scalars) };
    if (kind === 'upsert') ids.push(upsertFilter._id);
    // On the published build, findAndModify takes the document MongoDB's sort puts first (../support/mongodb-order.ts).
    const run = (collection: Collection, published = false) =>
      answer(async () => {
        switch (kind) {
          case 'one':
            return (await collection.updateOne({ _id: _id as never }, copy(change))).modifiedCount;
          case 'many':
            return (await collection.updateMany(query, copy(change))).modifiedCount;
          case 'replace':
            return (await collection.replaceOne({ _id: _id as never }, copy(doc))).modifiedCount;
          case 'findAndModify': {
            const first = published ? await mongoDbFirst(collection, query, order) : { filter: query, sort: order };
            return canonical(
              await collection.findOneAndUpdate(first.filter, copy(change), { sort: first.sort, returnDocument: 'after', ...exactly }),
            );
          }
          default: {
            const result = await collection.updateOne(copy(upsertFilter) as Document, copy(change), { upsert: true });
            return [result.matchedCount, result.modifiedCount, result.upsertedCount];
          }
        }
      });
    return { run, described: canonical({ kind, _id, change, query, doc, order, upsertFilter }) };
  }

  /** Finds with sorts, skips and limits, and both counts, on the fields the writes change. */
  async function compareQueries(random: Random, [patched, published]: readonly [Collection, Collection], described: string) {
    for (let k = 0; k < 2; k++) {
      const query = chance(random, 0.2) ? {} : filter(random, [...fields, '_id']);
      const order = sort(random, fields);
      const skip = order && chance(random, 0.2) ? Math.floor(random() * 10) : 0;
      const limit = order && chance(random, 0.6) ? 1 + Math.floor(random() * 10) : 0;
      const label = `${described}; then ${canonical({ query, order, skip, limit })}`;
      expect(await find(patched, query, order, skip, limit), label).toEqual(await expectedFind(published, query, order, skip, limit));
      const counted = (collection: Collection) => answer(() => collection.countDocuments(query));
      expect(await counted(patched), `countDocuments after ${label}`).toEqual(await counted(published));
      const commandCount = (collection: Collection) =>
        answer(async () => (await collection.db.command({ count: collection.collectionName, query })).n);
      expect(await commandCount(patched), `count after ${label}`).toEqual(await commandCount(published));
    }
  }

  const indexList = async (collection: Collection) =>
    (await collection.listIndexes().toArray()).map(({ name, key, unique }) => canonical({ name, key, unique })).sort();

  it('agrees on finds, sorts and counts through updates that make indexed fields arrays, documents or missing, and a restart', async () => {
    const random = streamOf(seed, 11);
    const docs = corpus(random, 'flat', 150);
    const ids = docs.map((doc) => doc._id);
    for (const collection of pairOf('shapes')) {
      for (const keys of [...indexes, { moved: 1 }]) await collection.createIndex(keys);
      await collection.insertMany(docs.map(copy));
    }
    const writes = 120;
    for (let n = 0; n < writes; n++) {
      if (n === writes / 2) await stores.restart();
      const pair = pairOf('shapes');
      const { run, described } = write(random, ids, n);
      const label = `seed ${seed}, write ${n}${n >= writes / 2 ? ' (after the restart)' : ''}: ${described}`;
      expect(await run(pair[0]), label).toEqual(await run(pair[1], true));
      expect(await wholeCollection(pair[0]), label).toEqual(await wholeCollection(pair[1]));
      await compareQueries(random, pair, label);
    }
    const [patched, published] = pairOf('shapes');
    expect(await indexList(patched)).toEqual(await indexList(published));
  }, 240_000);

  it('agrees on finds, sorts and counts after indexes are created over a collection already holding mixed data, and after a restart', async () => {
    const random = streamOf(seed, 12);
    const docs = corpus(random, 'mixed', 250);
    const pair = pairOf('late_indexes');
    for (const collection of pair) await collection.insertMany(docs.map(copy));
    await compareQueries(random, pair, `seed ${seed}, before any index`);
    for (const keys of [...indexes, { c: 1, a: -1 }]) {
      for (const collection of pair) await collection.createIndex(keys);
      for (let k = 0; k < 10; k++) await compareQueries(random, pair, `seed ${seed}, after creating ${canonical(keys)}`);
    }
    await stores.restart();
    const again = pairOf('late_indexes');
    expect(await indexList(again[0])).toEqual(await indexList(again[1]));
    for (let k = 0; k < 20; k++) await compareQueries(random, again, `seed ${seed}, after the restart`);
    for (const collection of again) await collection.dropIndex('a_1');
    for (let k = 0; k < 10; k++) await compareQueries(random, again, `seed ${seed}, after dropping a_1`);
  }, 240_000);
});
