import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { BSONRegExp, Binary, Double, Int32, Long, MongoClient, type Db, type Document } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedFerretDb } from '../../src/db/embedded-ferretdb.ts';
import { ensureFerretDbBinary } from '../../src/db/ferretdb-binary.ts';
import { outcome } from '../support/unique-writes.ts';

/**
 * Data format 3: a unique index keys a regular expression, binary data, a document or a double by all that MongoDB
 * compares of it (store-unique-indexes.test.ts holds the rule). Builds before it keyed them by what SQLite read of
 * their JSON alone (a pattern without its options, base64 without its subtype, a document with a date as its
 * milliseconds, a double's shortest digits): a folder they wrote is keyed again when this build opens it, or the
 * same value would get in twice.
 */
describe('a data folder of format 2, whose unique indexes key some values by their JSON', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-odd-keys-'));
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

  /** Makes the folder one a build of format 2 wrote: the value column as it computed it, no triggers, stamped 2. */
  function asFormat2() {
    const file = new DatabaseSync(join(dataDir, 'leadops.sqlite'));
    try {
      const { table_name: table } = file.prepare(`SELECT table_name FROM _ferretdb_collections WHERE name = 'things'`).get() as {
        table_name: string;
      };
      for (const { name } of file.prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?`).all(table)) {
        file.exec(`DROP TRIGGER "${String(name)}"`);
      }
      file.exec(`UPDATE "${table}" SET "_ferretdb_v_u" = coalesce(_ferretdb_sjson->>'$."u"', 0)`);
      file.exec('PRAGMA user_version = 2');
      return file.prepare(`SELECT count(DISTINCT "_ferretdb_v_u") AS n FROM "${table}"`).get() as { n: number };
    } finally {
      file.close();
    }
  }

  const stored: Document[] = [
    { _id: 1, u: new BSONRegExp('ab', 'i') },
    { _id: 2, u: new Binary(Buffer.from('hi'), 0) },
    { _id: 3, u: { a: new Date(5) } },
    { _id: 4, u: new Double(2 ** 60) },
  ];

  it('is keyed again on opening: the values it holds are refused again, and those of other options, subtypes or types taken', async () => {
    await withStore(async (folder) => {
      await folder.collection('things').createIndex({ u: 1 }, { unique: true });
      await folder.collection('things').insertMany(stored);
    });
    expect(asFormat2()).toEqual({ n: 4 });

    await withStore(async (folder) => {
      const things = folder.collection('things');
      for (const doc of [...stored, { _id: 5, u: Long.fromString('1152921504606846976') }]) {
        expect(await outcome(async () => (await things.insertOne({ ...doc, _id: 10 + doc._id })).acknowledged), String(doc._id)).toEqual({
          error: 11000,
        });
      }
      for (const u of [
        new BSONRegExp('ab', ''),
        new Binary(Buffer.from('hi'), 4),
        { a: new Int32(5) },
        Long.fromString('1152921504606847000'),
      ]) {
        expect(await outcome(async () => (await things.insertOne({ u })).acknowledged)).toBe(true);
      }
    });
    const file = new DatabaseSync(join(dataDir, 'leadops.sqlite'));
    try {
      // Stamped with the build's format (4 since unique indexes over arrays).
      expect(file.prepare('PRAGMA user_version').get()).toEqual({ user_version: 4 });
    } finally {
      file.close();
    }
  }, 120_000);
});
