import { randomUUID } from 'node:crypto';
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { inject } from 'vitest';

const newName = () => `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

/** A new, empty database of its own on the run's FerretDB (for tests of the store itself: no collection, no index). */
export const freshDatabaseUri = () => `${inject('mongoServer')}/${newName()}`;

/**
 * A database of its own for a test file that runs the application, on the run's FerretDB: one an earlier file
 * released, its documents deleted (its collections and indexes kept), or a new one. Making the application's
 * collections and indexes takes the store seconds (every ALTER TABLE parses the file's whole schema again); emptying
 * them takes a fraction of one. The files of a run take turns on databases through marker files in the run's pool
 * folder (`<name>.free`, or `<name>.taken`): renaming one is atomic, so exactly one file takes a free database.
 * `release` gives it back once nothing of the file uses it any more.
 */
export async function pooledDatabase(): Promise<{ uri: string; release: () => void }> {
  const pool = inject('databasePool');
  for (const marker of readdirSync(pool).filter((entry) => entry.endsWith('.free'))) {
    const name = marker.slice(0, -'.free'.length);
    const taken = join(pool, `${name}.taken-${randomUUID()}`);
    try {
      renameSync(join(pool, marker), taken);
    } catch {
      continue; // another file took it first
    }
    const uri = `${inject('mongoServer')}/${name}`;
    await emptied(uri);
    return { uri, release: () => renameSync(taken, join(pool, marker)) };
  }
  const name = newName();
  const taken = join(pool, `${name}.taken-${randomUUID()}`);
  writeFileSync(taken, '');
  return { uri: `${inject('mongoServer')}/${name}`, release: () => renameSync(taken, join(pool, `${name}.free`)) };
}

/** Deletes every document of the database, keeping its collections and their indexes. */
async function emptied(uri: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    const db = client.db();
    const collections = await db.listCollections({}, { nameOnly: true }).toArray();
    await Promise.all(collections.map(({ name }) => db.collection(name).deleteMany({})));
  } finally {
    await client.close();
  }
}
