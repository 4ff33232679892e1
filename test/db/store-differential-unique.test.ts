import { Double, Int32, Long, ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Random } from '../support/seeded-random.ts';
import { canonical, chance, copy, find, pick, runSeed, streamOf, wholeCollection } from '../support/store-corpus.ts';
import { startStorePair, type StorePair } from '../support/store-pair.ts';
import { asMongoDb, collision, outcome, runWrite, type Step, type UniqueIndex, type Write } from '../support/unique-writes.ts';

/**
 * Unique indexes answer as MongoDB's: generated inserts, updates, replacements, upserts, findAndModify and bulk
 * writes over fields holding numbers of the three types (equal ones among them), strings, booleans, ObjectIds,
 * dates, null, nothing or arrays of those run on the patched FerretDB and on FerretDB as published. The published
 * build stands in for MongoDB except where it is wrong against MongoDB's rule (../support/unique-writes.ts): it
 * takes a second document missing an indexed field, or one holding null where another misses it, and -2^63 as a
 * long and as a double; it indexes an array as one value, so it takes two documents sharing an element, and arrays
 * in both fields of a compound index. MongoDB refuses those (E11000; 171 for the last). Such a write is undone on
 * the published build, and the patched one is expected to refuse it. The values never mix a type with another
 * FerretDB writes as the same JSON (a date and its milliseconds, an ObjectId and its hex string): FerretDB as
 * published refuses those where MongoDB takes them, and store-unique-indexes.test.ts holds them.
 */
describe('unique indexes on the patched embedded FerretDB, against FerretDB as published and MongoDB', () => {
  const seed = runSeed('store-differential-unique');
  let stores: StorePair;

  beforeAll(async () => {
    stores = await startStorePair();
  }, 180_000);
  afterAll(() => stores?.stop());

  const values = [
    new Int32(1),
    Long.fromNumber(1),
    new Double(1),
    new Int32(2),
    new Double(2.5),
    Long.MAX_VALUE,
    new Double(2 ** 63),
    Long.MIN_VALUE,
    new Double(-(2 ** 63)),
    Long.fromString('9007199254740992'),
    new Double(2 ** 53),
    Long.fromString('9007199254740993'),
    'a',
    'b',
    'A',
    '',
    null,
    true,
    new ObjectId('650000000000000000000001'),
    new Date('2024-01-01T00:00:00Z'),
  ];
  const fields = ['u', 'v', 'w'];
  const uniqueIndexes: UniqueIndex[] = [
    { name: '_id_', fields: ['_id'] },
    { name: 'u_1', fields: ['u'] },
    { name: 'v_1_w_1', fields: ['v', 'w'] },
  ];

  /** A value, or now and then an array of up to three values (empty, or repeating one). */
  const value = (random: Random): unknown =>
    chance(random, 0.15) ? Array.from({ length: Math.floor(random() * 4) }, () => pick(random, values)) : pick(random, values);

  /** A document with each field present or missing, and rarely null (so that a collision is not the rule). */
  const document = (random: Random, _id?: string): Document => {
    const doc: Document = _id === undefined ? {} : { _id };
    for (const field of fields) if (chance(random, 0.75)) doc[field] = value(random);
    return doc;
  };
  function change(random: Random): Document {
    const field = pick(random, fields);
    switch (pick(random, ['$set', '$set', '$unset', '$rename', '$inc', 'two'])) {
      case '$set':
        return { $set: { [field]: value(random) } };
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
      case '$inc':
        return { $inc: { [field]: new Int32(1) } };
      default:
        return { $set: { v: value(random), w: value(random) } };
    }
  }

  function generate(random: Random, ids: string[], n: number): Write {
    const existing = () => pick(random, ids);
    const fresh = () => {
      ids.push(`k${n}-${ids.length}`);
      return ids.at(-1)!;
    };
    const anyId = () => (chance(random, 0.8) ? existing() : fresh());
    switch (pick(random, ['insertOne', 'insertMany', 'updateOne', 'updateOne', 'upsert', 'findAndModify', 'replace', 'bulk', 'delete'])) {
      case 'insertOne':
        return { command: 'insertOne', steps: [{ kind: 'insert', doc: document(random, fresh()) }], ordered: true };
      case 'insertMany': {
        const steps = Array.from({ length: 2 + Math.floor(random() * 3) }, (): Step => ({
          kind: 'insert',
          doc: document(random, fresh()),
        }));
        return { command: 'insertMany', steps, ordered: chance(random, 0.5) };
      }
      case 'updateOne':
        return { command: 'updateOne', steps: [{ kind: 'update', _id: existing(), update: change(random), upsert: false }], ordered: true };
      case 'upsert':
        return {
          command: 'upsert',
          steps: [
            {
              kind: 'update',
              _id: anyId(),
              update: change(random),
              upsert: true,
            },
          ],
          ordered: true,
        };
      case 'findAndModify':
        return { command: 'findAndModify', steps: [{ kind: 'findAndModify', _id: existing(), update: change(random) }], ordered: true };
      case 'replace':
        return { command: 'replaceOne', steps: [{ kind: 'replace', _id: existing(), doc: document(random) }], ordered: true };
      case 'delete':
        return { command: 'deleteOne', steps: [{ kind: 'delete', _id: existing() }], ordered: true };
      default: {
        const steps = Array.from({ length: 2 + Math.floor(random() * 4) }, (): Step => ({
          kind: 'update',
          _id: anyId(),
          update: change(random),
          upsert: chance(random, 0.3),
        }));
        // Unordered, MongoDB runs the statements after a refused one; FerretDB as published stops there whatever
        // the command asks (FerretDB#2612), and names the first statement: asMongoDb runs its statements one by one.
        return { command: 'bulkWrite', steps, ordered: chance(random, 0.5) };
      }
    }
  }

  it('refuses what MongoDB refuses and takes what it takes, through every kind of write and a restart', async () => {
    const random = streamOf(seed, 21);
    const name = 'unique_writes';
    for (const db of [stores.patched, stores.published]) {
      await db.collection(name).createIndex({ u: 1 }, { unique: true });
      await db.collection(name).createIndex({ v: 1, w: 1 }, { unique: true });
    }
    const ids: string[] = [];
    const writes = 200;
    for (let n = 0; n < writes; n++) {
      if (n === writes / 2) await stores.restart();
      const [patched, published] = [stores.patched.collection(name), stores.published.collection(name)];
      // A few documents first, then writes of every kind.
      const write: Write =
        n < 12
          ? { command: 'insertOne', steps: [{ kind: 'insert', doc: document(random, `s${n}`) }], ordered: true }
          : generate(random, ids, n);
      if (n < 12) ids.push(`s${n}`);
      const described = `seed ${seed}, write ${n}${n >= writes / 2 ? ' (after the restart)' : ''}: ${canonical(write)}`;
      const notes: string[] = [];
      const expected = await asMongoDb(published, write, uniqueIndexes, notes);
      expect(await outcome(() => runWrite(patched, write)), `${described} ${notes.join('; ')}`).toEqual(expected);
      expect(await wholeCollection(patched), `${described} ${notes.join('; ')}`).toEqual(await wholeCollection(published));
      const sought = pick(random, values);
      const order = { [pick(random, fields)]: pick(random, [1, -1] as const), _id: 1 as const };
      const query = { [pick(random, fields)]: chance(random, 0.3) ? { $exists: chance(random, 0.5) } : sought };
      expect(await find(patched, query, order), `${described}; then ${canonical({ query, order })}`).toEqual(
        await find(published, query, order),
      );
    }
  }, 240_000);

  it('refuses to create a unique index the stored documents break, as MongoDB does, and keeps one they do not', async () => {
    const random = streamOf(seed, 22);
    for (let n = 0; n < 24; n++) {
      const name = `unique_late_${n}`;
      const docs = Array.from({ length: 2 + Math.floor(random() * 5) }, (_, k) => document(random, `d${k}`));
      const keys = pick<Record<string, 1 | -1>>(random, [{ u: 1 }, { v: 1, w: 1 }, { w: -1 }]);
      const index: UniqueIndex = { name: Object.entries(keys).flat().join('_'), fields: Object.keys(keys) };
      const clash = collision(docs, [index]);
      const [patched, published] = [stores.patched.collection(name), stores.published.collection(name)];
      for (const collection of [patched, published]) await collection.insertMany(docs.map(copy));
      const described = `seed ${seed}, ${canonical({ docs, keys })}${clash ? `: MongoDB refuses it (${canonical(clash)})` : ''}`;
      // FerretDB as published answers an internal error where it cannot build the index, and builds it over two
      // documents missing its fields, sharing an array's element or holding parallel arrays: MongoDB refuses those
      // with E11000 or 171 (the patched build is held to that alone).
      expect(await outcome(() => patched.createIndex(keys, { unique: true })), described).toEqual(
        clash ? { error: clash.code } : index.name,
      );
      const names = (await patched.listIndexes().toArray()).map((listed) => listed.name);
      expect(names, described).toEqual(clash ? ['_id_'] : ['_id_', index.name]);
      const again = document(random, 'again');
      const refusedAgain = clash ? undefined : collision([...docs, again], [index]);
      expect(
        await outcome(async () => (await patched.insertOne(copy(again))).acknowledged),
        `${described}, then ${canonical(again)}`,
      ).toEqual(refusedAgain ? { error: refusedAgain.code } : true);
      if (!refusedAgain) await outcome(() => published.insertOne(copy(again)));
      // Finds are compared where the builds hold the same documents (the published one may have built the index MongoDB refuses, and then refused the last insert).
      if (canonical(await wholeCollection(patched)) === canonical(await wholeCollection(published))) {
        const query = { [pick(random, fields)]: pick(random, values) };
        expect(await find(patched, query), `${described}, then ${canonical(query)}`).toEqual(await find(published, query));
      }
    }
  }, 120_000);
});
