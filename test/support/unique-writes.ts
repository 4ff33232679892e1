import type { Collection, Document } from 'mongodb';
import { canonical, copy, exactly } from './store-corpus.ts';

/**
 * Writes on collections with unique indexes, and what MongoDB answers to them, for store-differential-unique.test.ts.
 *
 * MongoDB's unique-index rule, for the values the unique-index tests generate (numbers of the three types, strings,
 * booleans, ObjectIds, dates, null, a missing field, and arrays of those): two documents collide when they share a
 * key. Numbers compare by value across int, long and double, exactly (2^63 as a double is not the largest long); a
 * missing field is indexed as null ("If a document does not have a value for the indexed field in a unique index,
 * the index will store a null value for this document", https://www.mongodb.com/docs/manual/core/index-unique/);
 * values of different BSON types never compare equal (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/),
 * so a date and the number of its milliseconds do not collide. An array has a key per element, an empty one the key
 * undefined, and one document may repeat a key; at most one field of an index may hold an array in a document, else
 * MongoDB refuses it with 171 "cannot index parallel arrays" (https://www.mongodb.com/docs/manual/core/index-multikey/,
 * src/mongo/db/index/btree_key_generator.cpp). A write is checked index by index in their order, and in one index
 * parallel arrays before shared keys.
 */
export function keyOf(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return `string ${value}`;
    case 'boolean':
      return `bool ${value}`;
    case 'number':
      return numberKey(value);
  }
  if (value instanceof Date) return `date ${value.getTime()}`;
  const bson = value as { _bsontype?: string; value?: number; toString(): string; toHexString?(): string };
  switch (bson._bsontype) {
    case 'Int32':
    case 'Double':
      return numberKey(bson.value!);
    case 'Long':
      return `number ${bson.toString()}`;
    case 'ObjectId':
      return `objectId ${bson.toHexString!()}`;
  }
  throw new Error(`the unique-index model has no key for ${String(value)}`);
}

/** A number's exact value: every whole double is an integer BigInt can spell, as a long is. */
const numberKey = (x: number) => `number ${Number.isInteger(x) ? BigInt(x).toString() : String(x)}`;

export interface UniqueIndex {
  name: string;
  fields: string[];
  /** A sparse index leaves out documents missing all its fields (https://www.mongodb.com/docs/manual/core/index-sparse/). */
  sparse?: boolean;
}

/** The keys a field's value is indexed under: each element of an array, once (undefined for an empty one), or the value. */
const fieldKeys = (value: unknown): string[] =>
  Array.isArray(value) ? (value.length ? [...new Set(value.map(keyOf))] : ['undefined']) : [keyOf(value)];

/** A document's keys in an index, one per element of the array it holds in one of its fields. */
const indexKeys = (doc: Document, index: UniqueIndex): string[] =>
  index.fields
    .reduce<string[][]>((keys, field) => keys.flatMap((key) => fieldKeys(doc[field]).map((k) => [...key, k])), [[]])
    .map((key) => JSON.stringify(key));

/**
 * The first refusal MongoDB's indexes hold against the documents: one holding arrays in two fields of an index (code
 * 171), or two sharing a key of an index (E11000, with the first two that do); undefined when they hold none.
 */
export function collision(
  docs: Document[],
  indexes: UniqueIndex[],
): { index: string; ids: [unknown, unknown]; code: 11000 | 171 } | undefined {
  for (const index of indexes) {
    const parallel = docs.find((doc) => index.fields.filter((field) => Array.isArray(doc[field])).length > 1);
    if (parallel) return { index: index.name, ids: [parallel._id, parallel._id], code: 171 };
    const seen = new Map<string, unknown>();
    for (const doc of docs) {
      if (index.sparse && index.fields.every((field) => !(field in doc))) continue;
      const keys = indexKeys(doc, index);
      const shared = keys.find((key) => seen.has(key));
      if (shared) return { index: index.name, ids: [seen.get(shared), doc._id], code: 11000 };
      for (const key of keys) seen.set(key, doc._id);
    }
  }
  return undefined;
}

export type Step =
  | { kind: 'insert'; doc: Document }
  | { kind: 'update'; _id: string; update: Document; upsert: boolean }
  | { kind: 'findAndModify'; _id: string; update: Document }
  | { kind: 'replace'; _id: string; doc: Document }
  | { kind: 'delete'; _id: string };

/** One write: the command run on the patched build, and the steps (one a document) it is made of, in order. */
export interface Write {
  command: string;
  steps: Step[];
  ordered: boolean;
}

const counts = (result: { matchedCount: number; modifiedCount: number; upsertedCount: number }) => [
  result.matchedCount,
  result.modifiedCount,
  result.upsertedCount,
];
async function runStep(collection: Collection, step: Step): Promise<unknown> {
  switch (step.kind) {
    case 'insert':
      return (await collection.insertOne(copy(step.doc))).acknowledged;
    case 'update':
      return counts(await collection.updateOne({ _id: step._id as never }, copy(step.update), { upsert: step.upsert }));
    case 'findAndModify':
      return canonical(
        await collection.findOneAndUpdate({ _id: step._id as never }, copy(step.update), { returnDocument: 'after', ...exactly }),
      );
    case 'replace':
      return counts(await collection.replaceOne({ _id: step._id as never }, copy(step.doc)));
    case 'delete':
      return (await collection.deleteOne({ _id: step._id as never })).deletedCount;
  }
}

/** The write as one command: several steps are an insertMany or a bulkWrite, as an application sends them. */
export async function runWrite(collection: Collection, write: Write): Promise<unknown> {
  const [first] = write.steps;
  if (write.steps.length === 1) return runStep(collection, first!);
  if (first!.kind === 'insert') {
    const docs = write.steps.map((step) => copy((step as { doc: Document }).doc));
    return (await collection.insertMany(docs, { ordered: write.ordered })).insertedCount;
  }
  const operations = write.steps.map((step) => {
    const { _id, update, upsert } = step as Extract<Step, { kind: 'update' }>;
    return { updateOne: { filter: { _id: _id as never }, update: copy(update), upsert } };
  });
  return counts(await collection.bulkWrite(operations, { ordered: write.ordered }));
}

/** An answer, or the error's code and the steps a bulk command refused. */
export async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    const { code, writeErrors } = error as { code?: number; writeErrors?: Array<{ index: number; code: number }> };
    return {
      error: code === undefined ? 'no code' : Number(code),
      ...(writeErrors && { refused: writeErrors.map((refused) => [refused.index, refused.code]) }),
    };
  }
}

const stored = async (collection: Collection) => collection.find({}, exactly).toArray();
const refused = (result: unknown) => typeof result === 'object' && result !== null && 'error' in result;

/**
 * The write applied to the published build step by step, each step checked against MongoDB's rule and undone
 * where the published build took what MongoDB refuses: the answer MongoDB gives, with the published build left
 * holding what MongoDB would.
 */
export async function asMongoDb(published: Collection, write: Write, indexes: UniqueIndex[], notes: string[]): Promise<unknown> {
  const answers: unknown[] = [];
  const refusals: Array<[number, unknown]> = [];
  for (const [index, step] of write.steps.entries()) {
    const before = await stored(published);
    let result = await outcome(() =>
      runStep(published, step).catch((error: { code?: number; message?: string }) => {
        // FerretDB as published answers an update that breaks a unique index with an internal error naming
        // SQLite's constraint; MongoDB answers E11000, as it does for an insert.
        throw Number(error.code) === 1 && error.message?.includes('UNIQUE constraint failed') ? { code: 11000 } : error;
      }),
    );
    if (refused(result) && step.kind === 'insert' && (result as { error: unknown }).error === 11000) {
      const clash = collision([...before, step.doc], indexes);
      if (!clash) {
        throw new Error(
          `FerretDB as published refused ${canonical(step.doc)}, which MongoDB takes: the test's values must not mix such types`,
        );
      }
      // MongoDB checks the indexes in their order: parallel arrays in one before a key shared in a later one
      result = { error: clash.code };
    }
    if (!refused(result)) {
      const clash = collision(await stored(published), indexes);
      if (clash) {
        const _id = step.kind === 'insert' ? step.doc._id : step._id;
        const previous = before.find((doc) => canonical(doc._id) === canonical(_id));
        if (previous) await published.replaceOne({ _id }, previous);
        else await published.deleteOne({ _id });
        result = { error: clash.code };
        notes.push(`step ${index}: MongoDB refuses it (${canonical(clash)} in ${clash.index}), FerretDB as published took it`);
      }
    }
    if (!refused(result)) answers.push(result);
    else {
      refusals.push([index, (result as { error: unknown }).error]);
      if (write.ordered) break;
    }
  }
  if (write.steps.length === 1) return refusals.length ? { error: refusals[0]![1] } : answers[0];
  if (write.steps[0]!.kind === 'insert') return refusals.length ? { error: refusals[0]![1], refused: refusals } : answers.length;
  if (refusals.length) return { error: refusals[0]![1], refused: refusals };
  return (answers as number[][]).reduce((sum, counted) => sum.map((total, k) => total + counted[k]!), [0, 0, 0]);
}
