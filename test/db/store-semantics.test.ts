import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { BSONRegExp, MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFerretDb } from '../../src/db/embedded-ferretdb.ts';
import { ensureFerretDbBinary } from '../../src/db/ferretdb-binary.ts';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * The embedded store answers as MongoDB documents it, where FerretDB's patch once answered otherwise: a unique
 * index holds null and a missing field as one value, a regular expression also matches a field holding an equal
 * regular expression, and a query's check of the collection's values and its read of them see one state of it.
 */
let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = await MongoClient.connect(freshDatabaseUri());
  db = client.db();
});
afterAll(() => client.close());

const ids = async (collection: Collection<Document>, filter: Document, sort: Document = { _id: 1 }) =>
  (await collection.find(filter).sort(sort).toArray()).map((doc): unknown => doc._id);

describe('a unique index holds null and a missing field as one value', () => {
  // FerretDB as published refuses a second null but lets documents without the field in (its index is on the JSON
  // text, missing in SQL's NULL); MongoDB indexes a missing field as null, so each of these pairs collides.
  it.each([
    ['two nulls', { email: null }, { email: null }],
    ['a null and a missing field', { email: null }, {}],
    ['a missing field and a null', {}, { email: null }],
    ['two missing fields', {}, {}],
  ])('refuses %s', async (name, first, second) => {
    const people = db.collection(`people_${name.replaceAll(' ', '_')}`);
    await people.createIndex({ email: 1 }, { unique: true });
    await people.insertOne({ _id: 'a' as never, ...first });
    await expect(people.insertOne({ _id: 'b' as never, ...second })).rejects.toMatchObject({ code: 11000 });
    expect(await ids(people, {})).toEqual(['a']);
  });

  it('collides on a compound index only where every field is equal, null and missing alike', async () => {
    const people = db.collection('people_compound');
    await people.createIndex({ team: 1, email: 1 }, { unique: true });
    await people.insertMany([
      { _id: 'a' as never, team: 'red' },
      { _id: 'b' as never, team: 'blue', email: null },
      { _id: 'c' as never, team: 'red', email: 'c@example.test' },
      { _id: 'd' as never, email: 'c@example.test' },
      { _id: 'e' as never },
    ]);
    for (const doc of [{ team: 'red', email: null }, { team: 'blue' }, { team: null, email: 'c@example.test' }, { team: null }, {}]) {
      await expect(people.insertOne({ _id: 'x' as never, ...doc }), JSON.stringify(doc)).rejects.toMatchObject({ code: 11000 });
    }
    await people.insertOne({ _id: 'f' as never, team: 'green' });
    expect(await people.countDocuments({})).toBe(6);
  });

  it('refuses an update, a replacement and an upsert that would make a second null', async () => {
    const people = db.collection('people_writes');
    await people.createIndex({ email: 1 }, { unique: true });
    await people.insertMany([
      { _id: 'a' as never, email: null },
      { _id: 'b' as never, email: 'b@example.test' },
    ]);
    await expect(people.updateOne({ _id: 'b' as never }, { $unset: { email: '' } })).rejects.toMatchObject({ code: 11000 });
    await expect(people.updateOne({ _id: 'b' as never }, { $set: { email: null } })).rejects.toMatchObject({ code: 11000 });
    await expect(people.updateMany({ _id: 'b' as never }, { $rename: { email: 'mail' } })).rejects.toMatchObject({ code: 11000 });
    await expect(people.replaceOne({ _id: 'b' as never }, { name: 'B' })).rejects.toMatchObject({ code: 11000 });
    await expect(people.updateOne({ _id: 'c' as never }, { $set: { name: 'C' } }, { upsert: true })).rejects.toMatchObject({ code: 11000 });
    await expect(people.findOneAndUpdate({ _id: 'b' as never }, { $set: { email: null } })).rejects.toMatchObject({ code: 11000 });
    expect(await people.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', email: null },
      { _id: 'b', email: 'b@example.test' },
    ]);
    // Once the null is gone, the field may be missing from one document.
    await people.updateOne({ _id: 'a' as never }, { $set: { email: 'a@example.test' } });
    await people.updateOne({ _id: 'b' as never }, { $unset: { email: '' } });
    expect(await ids(people, { email: null })).toEqual(['b']);
  });

  it('refuses to create a unique index over documents holding two nulls, and leaves none behind', async () => {
    const people = db.collection('people_late_index');
    await people.insertMany([{ _id: 'a' as never, email: null }, { _id: 'b' as never, email: 'b@example.test' }, { _id: 'c' as never }]);
    await expect(people.createIndex({ email: 1 }, { unique: true })).rejects.toMatchObject({ code: 11000 });
    expect((await people.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_']);
    await people.insertOne({ _id: 'd' as never });
  });

  it('answers queries on null, missing and present values, and sorts null and missing first', async () => {
    const people = db.collection('people_queries');
    await people.createIndex({ email: 1 }, { unique: true });
    await people.createIndex({ team: 1, rank: 1 });
    await people.insertMany([
      { _id: 'a' as never, email: 'a@example.test', team: 'red', rank: 2 },
      { _id: 'b' as never, email: null, team: 'red' },
      { _id: 'c' as never, email: 'c@example.test', team: null, rank: null },
      { _id: 'd' as never, email: 'd@example.test', rank: 1 },
      { _id: 'e' as never, email: 'e@example.test', team: 'red', rank: null },
    ]);
    expect(await ids(people, { email: null })).toEqual(['b']);
    expect(await ids(people, { email: { $ne: null } })).toEqual(['a', 'c', 'd', 'e']);
    expect(await ids(people, { team: null })).toEqual(['c', 'd']);
    expect(await ids(people, { team: { $exists: false } })).toEqual(['d']);
    expect(await ids(people, { team: { $exists: true } })).toEqual(['a', 'b', 'c', 'e']);
    expect(await ids(people, { team: 'red', rank: null })).toEqual(['b', 'e']);
    expect(await ids(people, { team: { $in: [null, 'red'] } })).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await people.countDocuments({ team: 'red', rank: null })).toBe(2);
    expect(await people.countDocuments({ email: null })).toBe(1);
    expect(await people.countDocuments({ team: null })).toBe(2);
    expect(await ids(people, {}, { team: 1, _id: 1 })).toEqual(['c', 'd', 'a', 'b', 'e']);
    expect(await ids(people, {}, { email: -1, _id: 1 })).toEqual(['e', 'd', 'c', 'a', 'b']);
    expect((await people.find({}).sort({ rank: 1, _id: 1 }).limit(3).toArray()).map((doc) => doc._id)).toEqual(['b', 'c', 'e']);
  });

  it('lets documents without the field into a sparse unique index, not two nulls', async () => {
    const people = db.collection('people_sparse');
    await people.createIndex({ code: 1 }, { unique: true, sparse: true });
    await people.insertMany([{ _id: 'a' as never }, { _id: 'b' as never }, { _id: 'c' as never, code: null }]);
    await expect(people.insertOne({ _id: 'd' as never, code: null })).rejects.toMatchObject({ code: 11000 });
    await expect(people.updateOne({ _id: 'a' as never }, { $set: { code: null } })).rejects.toMatchObject({ code: 11000 });
    expect(await people.countDocuments({ code: null })).toBe(3);
    expect((await people.listIndexes().toArray()).find((index) => index.name === 'code_1')).toMatchObject({ unique: true, sparse: true });
  });
});

describe('a regular expression matches strings, and a field holding an equal regular expression', () => {
  // MongoDB's regex match compares a stored regular expression's pattern and flags with the query's, as written.
  // FerretDB as published ignores flags Go has no use for (it matched /ab/iu) and skips a regular expression
  // inside an array, which MongoDB matches as it matches any element.
  const docs = [
    { _id: 'string', a: 'xABy' },
    { _id: 'string-miss', a: 'zzz' },
    { _id: 'regex', a: /ab/i },
    { _id: 'regex-no-flags', a: /ab/ },
    { _id: 'regex-other-flags', a: /ab/im },
    { _id: 'regex-unicode-flag', a: new BSONRegExp('ab', 'iu') },
    { _id: 'regex-other', a: /cd/i },
    { _id: 'array-string', a: ['q', 'cab'] },
    { _id: 'array-regex', a: ['q', /ab/i] },
    { _id: 'number', a: 5 },
  ];

  describe.each([
    ['an indexed field', true],
    ['a field without an index', false],
  ])('on %s', (_, indexed) => {
    let regexes: Collection<Document>;

    beforeAll(async () => {
      regexes = db.collection(`regexes_${indexed ? 'indexed' : 'plain'}`);
      if (indexed) await regexes.createIndex({ a: 1 });
      await regexes.insertMany(docs as Document[]);
    });

    it.each<[string, Document, string[]]>([
      ['/ab/i', { a: /ab/i }, ['array-regex', 'array-string', 'regex', 'string']],
      ['/ab/', { a: /ab/ }, ['array-string', 'regex-no-flags']],
      ['$regex with $options', { a: { $regex: 'ab', $options: 'i' } }, ['array-regex', 'array-string', 'regex', 'string']],
      ['$regex with a regular expression', { a: { $regex: /ab/im } }, ['array-string', 'regex-other-flags', 'string']],
      ['$in with regexes', { a: { $in: [/ab/i, 'zzz'] } }, ['array-regex', 'array-string', 'regex', 'string', 'string-miss']],
      ['a regex and $exists', { a: { $regex: /cd/i, $exists: true } }, ['regex-other']],
    ])('%s: find, count and countDocuments agree', async (_, filter, expected) => {
      expect(await ids(regexes, filter)).toEqual(expected);
      expect(await regexes.countDocuments(filter)).toBe(expected.length);
      expect((await db.command({ count: regexes.collectionName, query: filter })).n).toBe(expected.length);
    });

    it('finds the stored regular expression as it was stored', async () => {
      const [found] = await regexes.find({ _id: 'regex' as never, a: /ab/i }, { bsonRegExp: true }).toArray();
      expect(found?.a).toEqual(new BSONRegExp('ab', 'i'));
    });
  });
});

describe('a query checks the collection and reads it in one state', () => {
  // A writer turns one document's indexed field from -1 into an array holding -1 and back. In either state that
  // document comes first in an ascending sort (an array sorts by its least element) and matches {v: -1}. The
  // store decides from its partial indexes whether SQLite may sort and filter alone (no arrays), then reads:
  // both have to see the same state, or the array is sorted last and missed by the filter and the count.
  it('answers sorts with a limit, finds and counts right while a writer flips a field between a scalar and an array', async () => {
    const race = db.collection<{ _id: string; v: number | number[] }>('race');
    await race.createIndex({ v: 1 });
    await race.insertMany([{ _id: 'x', v: -1 }, ...Array.from({ length: 40 }, (_, n) => ({ _id: `d${n}`, v: n }))]);

    let writing = true;
    const wrong: string[] = [];
    const writer = (async () => {
      for (let flip = 0; flip < 1500; flip++) {
        await race.updateOne({ _id: 'x' }, { $set: { v: flip % 2 ? -1 : [-1, 1000] } });
      }
      writing = false;
    })();
    const reader = async () => {
      let reads = 0;
      while (writing || reads < 50) {
        reads++;
        const top = await race.find({}).sort({ v: 1 }).limit(2).toArray();
        if (top[0]?._id !== 'x') wrong.push(`top-2 ${JSON.stringify(top)}`);
        const count = await race.countDocuments({ v: -1 });
        if (count !== 1) wrong.push(`countDocuments ${count}`);
        const matched = await race.find({ v: -1 }).toArray();
        if (matched.length !== 1) wrong.push(`find ${matched.length}`);
      }
      return reads;
    };
    const reads = await Promise.all([reader(), reader(), reader()]);
    await writer;
    expect(wrong.slice(0, 5), `${wrong.length} wrong answers in ${reads.join(' + ')} rounds`).toEqual([]);
  }, 120_000);
});

describe('a data folder whose unique indexes hold null as SQL NULL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-null-keys-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function withStore<T>(use: (db: Db) => Promise<T>): Promise<T> {
    const store = await startEmbeddedFerretDb({ dataDir, binary: ensureFerretDbBinary(() => {}), log: () => {}, role: 'test' });
    const storeClient = await MongoClient.connect(store.uri);
    try {
      return await use(storeClient.db('leadops'));
    } finally {
      await storeClient.close();
      await store.stop();
    }
  }

  /**
   * Writes a folder as builds before data format 2 did: SQL NULL in the value column of each null or missing
   * field, the file stamped format 1 (its triggers, which would compute the columns again, dropped meanwhile:
   * this build makes them again on opening).
   */
  function asWrittenBefore(collection: string, field: string, nullDocs: string[] = []) {
    const file = new DatabaseSync(join(dataDir, 'leadops.sqlite'));
    try {
      const { table_name: table } = file.prepare('SELECT table_name FROM _ferretdb_collections WHERE name = ?').get(collection) as {
        table_name: string;
      };
      for (const { name } of file.prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?`).all(table)) {
        file.exec(`DROP TRIGGER "${String(name)}"`);
      }
      file.exec('PRAGMA user_version = 1');
      for (const id of nullDocs) {
        file
          .prepare(
            `UPDATE "${table}" SET _ferretdb_sjson = json_set(_ferretdb_sjson, '$.${field}', json('null'), '$."$s".p.${field}.t', 'null'),
             "_ferretdb_r_${field}" = 1 WHERE _ferretdb_id = ?`,
          )
          .run(JSON.stringify(id));
      }
      file.prepare(`UPDATE "${table}" SET "_ferretdb_v_${field}" = NULL WHERE "_ferretdb_r_${field}" = 1`).run();
      return (file.prepare(`SELECT count(*) AS n FROM "${table}" WHERE "_ferretdb_v_${field}" IS NULL`).get() as { n: number }).n;
    } finally {
      file.close();
    }
  }

  it('is opened with null and missing fields made one key, which then refuses a second null', async () => {
    await withStore(async (folder) => {
      const people = folder.collection('people');
      await people.createIndex({ email: 1 }, { unique: true });
      await people.createIndex({ team: 1 });
      await people.insertMany([
        { _id: 'a' as never, email: null, team: null },
        { _id: 'b' as never, email: 'b@example.test' },
        { _id: 'c' as never, email: 'c@example.test', team: 'red' },
      ]);
    });
    expect(asWrittenBefore('people', 'email')).toBe(1);
    expect(asWrittenBefore('people', 'team')).toBe(2);

    await withStore(async (folder) => {
      const people = folder.collection('people');
      expect(await ids(people, { email: null })).toEqual(['a']);
      expect(await people.countDocuments({ team: null })).toBe(2);
      expect(await ids(people, {}, { team: -1, _id: 1 })).toEqual(['c', 'a', 'b']);
      await expect(people.insertOne({ _id: 'd' as never })).rejects.toMatchObject({ code: 11000 });
      await expect(people.updateOne({ _id: 'b' as never }, { $set: { email: null } })).rejects.toMatchObject({ code: 11000 });
    });
  }, 120_000);

  it('is refused, naming the collection and the index, when its unique index holds two nulls', async () => {
    await withStore(async (folder) => {
      const dupes = folder.collection('dupes');
      await dupes.createIndex({ code: 1 }, { unique: true, name: 'code_unique' });
      await dupes.insertMany([
        { _id: 'a' as never, code: 'a' },
        { _id: 'b' as never, code: 'b' },
      ]);
    });
    asWrittenBefore('dupes', 'code', ['a', 'b']);
    await expect(withStore(async () => {})).rejects.toThrow(/dupes.*code_unique/);
  }, 120_000);
});
