import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUri } from '../support/database.ts';

/**
 * MongoDB stores any field name but one holding a null byte (https://www.mongodb.com/docs/manual/core/document/,
 * "Field Names"), and reads it back as written. FerretDB keeps a document as JSON, so a field name with a quote, a
 * backslash or a control character must be escaped there. The patched build writes top-level names with a quote
 * or a backslash unescaped: the insert is taken, and every later find or update reading that document fails
 * (FerretDB as published refuses the insert). FerretDB as published does the same with a tab, a newline or
 * another control character, which the patched build writes right.
 */
describe('field names that JSON escapes, on the embedded store', () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = await MongoClient.connect(freshDatabaseUri());
    db = client.db();
  });
  afterAll(() => client.close());

  const names = ['say "hi"', 'back\\slash', 'tab\tkey', 'line\nkey', '\u0001', '\u007f', 'line\u2028sep', '<&>', 'clé', '😀', ''];

  it.each(names.map((name) => [JSON.stringify(name), name]))('%s is stored and read back, at the top level and nested', async (_, name) => {
    const collection = db.collection(`names_${names.indexOf(name)}`);
    const docs = [
      { _id: 'top', [name]: 'v' },
      { _id: 'nested', n: { [name]: 'v' } },
      { _id: 'in an array', n: [{ [name]: 'v' }] },
    ];
    await collection.insertOne({ _id: 'plain' as never, v: 1 });
    for (const doc of docs) await collection.insertOne(structuredClone(doc) as never);
    expect(await collection.find({}, { sort: { _id: 1 } }).toArray()).toEqual(
      [...docs, { _id: 'plain', v: 1 }].sort((a, b) => (a._id < b._id ? -1 : 1)),
    );
    expect((await collection.updateMany({}, { $set: { seen: true } })).modifiedCount).toBe(4);
    expect(await collection.findOne({ _id: 'top' as never }, { projection: { _id: 0 } })).toEqual({ [name]: 'v', seen: true });
  });
});
