import { type AnyBulkWriteOperation, type BulkWriteResult, type Collection, type Document, type MongoBulkWriteError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  canonical,
  chance,
  conditionOffId,
  copy,
  corpus,
  exactly,
  filter,
  find,
  indexes,
  pick,
  runSeed,
  scalars,
  sort,
  streamOf,
  wholeCollection,
  type Shape,
} from '../support/store-corpus.ts';
import { expectedFind, mongoDbFirst } from '../support/mongodb-order.ts';
import { startStorePair, type StorePair } from '../support/store-pair.ts';

/**
 * The patched FerretDB answers every query as the FerretDB it was patched from: a generated
 * corpus of documents (mixed types, arrays, nested fields, unicode and escaped strings, numbers
 * across int/long/double up to the ends of int64 and past 2^63, dates before 2001, regular
 * expressions, missing fields; string, ObjectId, numeric and document _ids) and generated queries,
 * finds, counts, updates and deletes run against both builds, which must agree on every answer.
 */
describe('the patched embedded FerretDB against FerretDB as published', () => {
  const seed = runSeed('store-differential');
  let stores: StorePair;

  beforeAll(async () => {
    stores = await startStorePair();
  }, 180_000);
  afterAll(() => stores?.stop());

  /** The same collection, with the same documents and indexes, on both stores. */
  async function twin(name: string, docs: Document[]) {
    const pair = [stores.patched.collection(name), stores.published.collection(name)] as const;
    for (const collection of pair) {
      for (const keys of indexes) await collection.createIndex(keys);
      await collection.insertMany(docs.map(copy));
    }
    return pair;
  }

  it('refuses a NaN anywhere in a request as the published build does, and answers the next one', async () => {
    const [patched, published] = await twin('nan_requests', [{ _id: 'a', v: 1 }]);
    const requests = [
      (collection: Collection) => collection.insertOne({ _id: 'n' as never, v: Number.NaN }),
      (collection: Collection) => collection.find({ v: { $in: [1, Number.NaN] } }).toArray(),
      (collection: Collection) => collection.updateOne({ _id: 'a' as never }, { $set: { deep: { list: [1, { x: Number.NaN }] } } }),
    ];
    for (const request of requests) {
      const [fromPatched, fromPublished] = [await answer(() => request(patched)), await answer(() => request(published))];
      expect(fromPatched).toMatchObject({ error: expect.anything() });
      expect(fromPatched).toEqual(fromPublished);
      expect(await wholeCollection(patched)).toEqual(await wholeCollection(published));
    }
  });

  it('agrees on finds with projections over a mixed corpus', async () => {
    const random = streamOf(seed, 1);
    const [patched, published] = await twin('p_mixed', corpus(random, 'mixed', 300));
    for (let n = 0; n < 150; n++) {
      const query = chance(random, 0.5) ? filter(random) : {};
      const order = chance(random, 0.5) ? { _id: 1 } : undefined;
      const fields = ['a', 'b', 'c', 's', 'd', 'n', 'nope', 'n.x'].filter(() => chance(random, 0.35));
      const projection: Document = Object.fromEntries(fields.map((field) => [field, pick(random, [1, true])]));
      if (chance(random, 0.3)) projection._id = 0;
      const described = `seed ${seed}, projection ${n}: ${canonical({ query, projection })}`;
      expect(await find(patched, query, order, 0, 0, projection), described).toEqual(await find(published, query, order, 0, 0, projection));
    }
  }, 180_000);

  const shapes: Shape[] = ['flat', 'mixed'];

  it.each(shapes)(
    'agrees on finds and counts over a %s corpus',
    async (shape) => {
      const random = streamOf(seed, shape === 'flat' ? 2 : 3);
      const [patched, published] = await twin(`q_${shape}`, corpus(random, shape, 300));
      for (let n = 0; n < 200; n++) {
        const query = filter(random);
        const order = sort(random);
        // MongoDB promises no order without a sort: a skip or a limit then picks any of the matches.
        const skip = order && chance(random, 0.2) ? Math.floor(random() * 20) : 0;
        const limit = order && chance(random, 0.5) ? 1 + Math.floor(random() * 30) : 0;
        const described = `seed ${seed}, query ${n}: ${canonical({ query, order, skip, limit })}`;
        expect(await find(patched, query, order, skip, limit), described).toEqual(await expectedFind(published, query, order, skip, limit));
        const counted = (collection: Collection) => answer(() => collection.countDocuments(query, skip ? { skip, limit } : {}));
        expect(await counted(patched), `count of ${described}`).toEqual(await counted(published));
        const commandCount = (collection: Collection) =>
          answer(async () => (await collection.db.command({ count: collection.collectionName, query })).n);
        expect(await commandCount(patched), `count command of ${described}`).toEqual(await commandCount(published));
      }
    },
    180_000,
  );

  it.each(shapes)(
    'agrees on updates and deletes over a %s corpus',
    async (shape) => {
      const random = streamOf(seed, shape === 'flat' ? 4 : 5);
      const [patched, published] = await twin(`w_${shape}`, corpus(random, shape, 200));
      for (let n = 0; n < 80; n++) {
        const query = filter(random);
        const described = `seed ${seed}, write ${n}: ${canonical(query)}`;
        const value = pick(random, scalars);
        // Single-document writes name their document by a sort ending in _id: without one MongoDB may take any match.
        // On the published build, the document MongoDB's sort puts first (../support/mongodb-order.ts).
        const write = (collection: Collection, published = false) =>
          answer(async () => {
            const first = async (order: Document) => (published ? mongoDbFirst(collection, query, order) : { filter: query, sort: order });
            switch (n % 5) {
              case 0:
                return (await collection.updateMany(query, { $inc: { hits: 1 } })).modifiedCount;
              case 1:
                return (await collection.updateMany(query, { $set: { b: value, touched: n } })).modifiedCount;
              case 2: {
                const { filter: picked, sort: order } = await first({ s: 1, _id: 1 });
                return canonical(
                  await collection.findOneAndUpdate(picked, { $set: { touched: n } }, { sort: order, returnDocument: 'after', ...exactly }),
                );
              }
              case 3: {
                const { filter: picked, sort: order } = await first({ d: -1, _id: 1 });
                return canonical(await collection.findOneAndDelete(picked, { sort: order, ...exactly }));
              }
              default:
                return (await collection.deleteMany({ $and: [query, { c: { $type: 'string' } }] })).deletedCount;
            }
          });
        expect(await write(patched), described).toEqual(await write(published, true));
        expect(await wholeCollection(patched), described).toEqual(await wholeCollection(published));
      }
    },
    180_000,
  );

  it.each(shapes)(
    'agrees on bulk writes of single-document updates over a %s corpus',
    async (shape) => {
      const random = streamOf(seed, shape === 'flat' ? 6 : 7);
      const docs = corpus(random, shape, 120);
      const [patched, published] = await twin(`b_${shape}`, docs);
      for (let n = 0; n < 60; n++) {
        // Mostly ids the corpus has (the patched store writes string ones together); now and then a repeated id, an
        // id no document has, an extra condition, an upsert, or an operator that fails on the value.
        const operations = Array.from({ length: 2 + Math.floor(random() * 10) }, (_, k): AnyBulkWriteOperation => {
          const _id = chance(random, 0.85) ? pick(random, docs)._id : `new${Math.floor(random() * 20)}`;
          const update = pick(random, [
            { $inc: { hits: 1 } },
            { $set: { b: pick(random, scalars), touched: n } },
            { $inc: { hits: 2 }, $setOnInsert: { born: n } },
            { $inc: { s: 1 } },
            { $set: { [`n.${k}`]: n }, $unset: { c: '' } },
          ]);
          const extra = chance(random, 0.3) ? conditionOffId(random) : {};
          return { updateOne: { filter: { _id: _id as never, ...extra }, update, upsert: chance(random, 0.3) } };
        });
        const ordered = chance(random, 0.5);
        const described = `seed ${seed}, bulk ${n} (ordered: ${ordered}): ${canonical(operations)}`;
        expect(shown(await runBulk(patched, operations, ordered)), described).toEqual(await bulkAsMongoDb(published, operations, ordered));
        expect(await wholeCollection(patched), described).toEqual(await wholeCollection(published));
      }
    },
    180_000,
  );

  interface BulkOutcome {
    counts: number[];
    upserted: Record<number, unknown>;
    refused: Array<[number, number]>;
  }

  /** What a bulk write did: its counts, the statement each upserted _id came from, the statements refused (index, code). */
  async function runBulk(
    collection: Collection,
    operations: AnyBulkWriteOperation[],
    ordered: boolean,
  ): Promise<BulkOutcome | { error: unknown }> {
    const outcome = (result: BulkWriteResult, refused: Array<[number, number]>) => ({
      counts: [result.matchedCount, result.modifiedCount, result.upsertedCount],
      upserted: result.upsertedIds,
      refused,
    });
    try {
      return outcome(await collection.bulkWrite(operations.map(copy), { ordered }), []);
    } catch (error) {
      const { result, writeErrors, code } = error as MongoBulkWriteError;
      if (!result) return { error: code };
      return outcome(
        result,
        (Array.isArray(writeErrors) ? writeErrors : [writeErrors]).map((refused) => [refused.index, refused.code]),
      );
    }
  }
  const shown = (answer: BulkOutcome | { error: unknown }) =>
    'error' in answer ? answer : { ...answer, upserted: canonical(answer.upserted) };

  /**
   * MongoDB's answer to a bulk write of updates, from FerretDB as published given its statements one by one:
   * MongoDB runs the statements after a refused one unless the write is ordered, and names each refused statement
   * and each upsert's statement by its index. FerretDB as published stops at a refused statement whatever the write
   * asks (FerretDB#2612), names the first statement as the one refused, and gives an upserted document the count of
   * upserts before it as its statement's index.
   */
  async function bulkAsMongoDb(published: Collection, operations: AnyBulkWriteOperation[], ordered: boolean) {
    const answer: BulkOutcome = { counts: [0, 0, 0], upserted: {}, refused: [] };
    for (const [index, operation] of operations.entries()) {
      const one = await runBulk(published, [operation], true);
      if ('error' in one) return one;
      one.counts.forEach((count, k) => (answer.counts[k]! += count));
      if (one.upserted[0] !== undefined) answer.upserted[index] = one.upserted[0];
      answer.refused.push(...one.refused.map(([, code]): [number, number] => [index, code]));
      if (ordered && one.refused.length) break;
    }
    return shown(answer);
  }
});
