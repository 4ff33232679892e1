import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedFerretDb } from '../../src/db/embedded-ferretdb.ts';
import { ensureFerretDbBinary, type FerretDbBuild } from '../../src/db/ferretdb-binary.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { brokenUniqueIndexes, emptyModel, expectModel, nextStep, type Model, type Thing } from '../support/store-sequences.ts';

const binary = (build: FerretDbBuild) => ensureFerretDbBinary(() => {}, undefined, build);

async function withStore<T>(dataDir: string, build: FerretDbBuild, use: (client: MongoClient) => Promise<T>): Promise<T> {
  const store = await startEmbeddedFerretDb({ dataDir, binary: binary(build), log: () => {}, role: 'test' });
  const client = await MongoClient.connect(store.uri);
  try {
    return await use(client);
  } finally {
    await client.close();
    await store.stop();
  }
}

/** Runs SQL on the service's database file of a folder no FerretDB has open (as an operator would with sqlite3). */
function onDatabaseFile<T>(dataDir: string, use: (file: DatabaseSync) => T): T {
  const file = new DatabaseSync(join(dataDir, 'leadops.sqlite'));
  try {
    return use(file);
  } finally {
    file.close();
  }
}

/**
 * A data folder FerretDB as published wrote (indexes on the documents' JSON text, no columns of ours) is
 * opened by the patched build: its indexed fields get their columns, filled from the documents stored, so
 * the same queries answer the same documents from the indexes, and writes keep the columns true.
 */
describe('a data folder written by FerretDB as published', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-upgrade-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const people = Array.from({ length: 300 }, (_, n) => ({
    _id: `p-${n}`,
    team: `team-${n % 4}`,
    score: n % 2 ? n : n + 0.5,
    joined: new Date(Date.UTC(1995, 0, 1) + n * 86_400_000),
    email: `p${n}@example.test`,
    note: n % 10 ? 'plain' : { nested: n },
  }));

  it('answers from the indexes after the upgrade, and keeps them true through writes', async () => {
    await withStore(dataDir, 'upstream', async (client) => {
      const collection = client.db('leadops').collection<(typeof people)[number]>('people');
      await collection.createIndex({ team: 1, joined: -1 });
      await collection.createIndex({ score: 1 });
      await collection.createIndex({ email: 1 }, { unique: true });
      await collection.insertMany(people);
    });

    await withStore(dataDir, 'patched', async (client) => {
      const db = client.db('leadops');
      const collection = db.collection<(typeof people)[number]>('people');
      const plan = async (filter: Record<string, unknown>) =>
        JSON.stringify((await db.command({ explain: { find: 'people', filter } })).queryPlanner);

      expect(await collection.countDocuments({ team: 'team-1', joined: { $lt: new Date(Date.UTC(1995, 3, 1)) } })).toBe(
        people.filter((p) => p.team === 'team-1' && p.joined < new Date(Date.UTC(1995, 3, 1))).length,
      );
      expect(
        (
          await collection
            .find({ score: { $gte: 10, $lt: 20 } })
            .sort({ score: 1 })
            .toArray()
        ).map((p) => p._id),
      ).toEqual(
        people
          .filter((p) => p.score >= 10 && p.score < 20)
          .sort((a, b) => a.score - b.score)
          .map((p) => p._id),
      );
      expect(await collection.findOne({ _id: 'p-7' })).toMatchObject({ email: 'p7@example.test' });
      expect(await plan({ team: 'team-2' })).toMatch(/SEARCH .* USING INDEX/);
      expect(await plan({ _id: 'p-7' })).toMatch(/SEARCH .* USING INDEX/);

      // Writes after the upgrade: an indexed field changed, one left alone, a unique index still refusing.
      await collection.updateMany({ team: 'team-3' }, { $set: { team: 'team-9' } });
      await collection.updateOne({ _id: 'p-8' }, { $set: { note: 'changed' } });
      expect(await collection.countDocuments({ team: 'team-3' })).toBe(0);
      expect(await collection.countDocuments({ team: 'team-9' })).toBe(people.filter((p) => p.team === 'team-3').length);
      expect(await collection.findOne({ team: 'team-0', note: 'changed' })).toMatchObject({ _id: 'p-8' });
      await expect(collection.updateOne({ _id: 'p-9' }, { $set: { email: 'p10@example.test' } })).rejects.toMatchObject({ code: 11000 });
      await collection.insertOne({ _id: 'p-new', team: 'team-9', score: 1, joined: new Date(0), email: 'new@example.test', note: 'x' });
      expect(await collection.countDocuments({ team: 'team-9', score: 1 })).toBe(1);
    });
  }, 180_000);
});

/**
 * Whatever sequence of the two builds writes one folder (FerretDB as published cannot be changed: it inserts a
 * document without the columns of ours and updates it leaving them as they were), no two documents share an
 * `_id`, unique indexes hold, and every document is found by its `_id` and by its indexed fields. The seed
 * changes every run and is printed; STORE_UPGRADE_SEED=<n> replays one.
 */
describe('one data folder written in turns by the patched build and by FerretDB as published', () => {
  const seed = Number(process.env.STORE_UPGRADE_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`store-upgrade: seed ${seed} (STORE_UPGRADE_SEED=${seed} replays it)`);

  it.each([seed, seed + 1, seed + 2])(
    'keeps every document findable and every unique index true through a sequence of sessions (seed %i)',
    async (sequenceSeed) => {
      const random = seededRandom(sequenceSeed);
      const dataDir = mkdtempSync(join(tmpdir(), 'leadops-turns-'));
      const model = emptyModel();
      const sessions = 8;
      let build: FerretDbBuild = random() < 0.5 ? 'upstream' : 'patched';
      try {
        for (let session = 0; session < sessions; session++) {
          // Mostly the other build than the session before; the last is the project's build, which the service runs.
          const other: FerretDbBuild = build === 'patched' ? 'upstream' : 'patched';
          build = session === sessions - 1 ? 'patched' : random() < 0.75 ? other : build;
          const where = `seed ${sequenceSeed}, session ${session} (${build})`;
          if (build === 'patched') await mendForOpening(dataDir, model, where);
          await withStore(dataDir, build, async (client) => {
            const things = client.db('leadops').collection<Thing>('things');
            await expectModel(things, model, `${where}, on opening`);
            if (build === 'patched') model.indexes.forEach((name) => model.nullAware.add(name));
            for (let n = 0; n < 20; n++) {
              const step = nextStep(random, model, build);
              const what = `${where}, step ${n}: ${step.describe}`;
              if (step.refused) {
                await expect(step.run(things), `${what} is refused`).rejects.toThrow();
              } else {
                await step.run(things).catch((error: Error) => {
                  throw new Error(`${what} failed: ${error.message}`);
                });
                step.apply(model);
              }
            }
            await expectModel(things, model, where);
          });
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});

/**
 * Before the project's build opens a folder whose unique index FerretDB as published made and filled with
 * documents sharing a key under MongoDB's rule (two without the field): the build refuses it, naming the index,
 * and the operator does as the refusal says — with that build, gives all but one of them another value.
 */
async function mendForOpening(dataDir: string, model: Model, where: string) {
  const broken = brokenUniqueIndexes(model);
  if (!broken.length) return;
  await expect(
    withStore(dataDir, 'patched', async () => {}),
    `${where}: refused on opening`,
  ).rejects.toThrow(new RegExp(`share a key of its unique index "(${broken.map(({ name }) => name).join('|')})"`));
  await withStore(dataDir, 'upstream', async (client) => {
    const things = client.db('leadops').collection<Thing>('things');
    for (const { field, extra } of broken) {
      for (const id of extra) {
        const value = `mended-${id}`;
        await things.updateOne({ _id: id }, { $set: { [field]: value } });
        Object.assign(model.things.get(id)!, { [field]: value });
      }
    }
  });
}

describe('a data folder the patch wrote before format versions', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-format-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const things: Thing[] = Array.from({ length: 40 }, (_, n) => ({ _id: `k${n}`, team: `t${n % 4}`, email: `e${n}`, score: n }));

  /** Makes a folder of the patched build into one of the patch before format versions: no triggers, no stamp. */
  const asBeforeFormatVersions = () =>
    onDatabaseFile(dataDir, (file) => {
      for (const { name } of file.prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger'`).all()) {
        file.exec(`DROP TRIGGER "${String(name)}"`);
      }
      const { table } = file.prepare(`SELECT table_name AS "table" FROM _ferretdb_collections WHERE name = 'things'`).get()!;
      const columns = file.prepare(`SELECT name FROM pragma_table_info(?)`).all(String(table));
      if (columns.some(({ name }) => name === '_ferretdb_flip')) file.exec(`ALTER TABLE "${String(table)}" DROP COLUMN _ferretdb_flip`);
      file.exec('PRAGMA user_version = 0');
    });

  it('is repaired on opening: documents FerretDB as published inserted or changed are found by _id and indexed fields', async () => {
    await withStore(dataDir, 'patched', async (client) => {
      const collection = client.db('leadops').collection<Thing>('things');
      await collection.createIndex({ team: 1 });
      await collection.createIndex({ email: 1 }, { unique: true });
      await collection.insertMany(things);
    });
    asBeforeFormatVersions();

    const model = emptyModel();
    things.forEach((thing) => model.things.set(thing._id, { ...thing }));
    model.indexes.add('team_1').add('email_1');
    await withStore(dataDir, 'upstream', async (client) => {
      const collection = client.db('leadops').collection<Thing>('things');
      await collection.insertMany([40, 41, 42].map((n) => ({ _id: `k${n}`, team: 't1', email: `e${n}`, score: n })));
      await collection.updateMany({ score: { $lt: 10 } }, { $set: { team: 't9' } });
      await collection.updateOne({ _id: 'k20' }, { $set: { email: 'e-changed' } });
    });
    [40, 41, 42].forEach((n) => model.things.set(`k${n}`, { _id: `k${n}`, team: 't1', email: `e${n}`, score: n }));
    [...model.things.values()].filter((t) => t.score < 10).forEach((t) => (t.team = 't9'));
    model.things.get('k20')!.email = 'e-changed';

    await withStore(dataDir, 'patched', async (client) => {
      const collection = client.db('leadops').collection<Thing>('things');
      await expectModel(collection, model, 'after the repair');
      await expect(collection.insertOne({ _id: 'k41', team: 't0', email: 'e-other', score: 0 })).rejects.toMatchObject({ code: 11000 });
      await expect(collection.insertOne({ _id: 'k-new', team: 't0', email: 'e-changed', score: 0 })).rejects.toMatchObject({ code: 11000 });
    });
  }, 120_000);

  it('is refused while two documents share an _id, naming them, and opens once one is deleted', async () => {
    asBeforeFormatVersions();
    await withStore(dataDir, 'upstream', async (client) => {
      await client.db('leadops').collection<Thing>('things').insertOne({ _id: 'k3', team: 't3', email: 'e-twin', score: 3 });
    });

    const refusal = withStore(dataDir, 'patched', async () => {});
    await expect(refusal).rejects.toThrow(/documents share the _id "k3" \(rows \d+, \d+ of table "things_[0-9a-f]+"\)/);
    const [, rows, table] = /rows \d+, (\d+) of table "([^"]+)"/.exec(String(await refusal.catch((error: Error) => error.message)))!;
    onDatabaseFile(dataDir, (file) => file.exec(`DELETE FROM "${table}" WHERE rowid IN (${rows})`));

    await withStore(dataDir, 'patched', async (client) => {
      const collection = client.db('leadops').collection<Thing>('things');
      expect(await collection.countDocuments({ _id: 'k3' })).toBe(1);
      await expect(collection.insertOne({ _id: 'k3', team: 't3', email: 'e-twin-2', score: 3 })).rejects.toMatchObject({ code: 11000 });
    });
  }, 120_000);
});

describe('a data folder of a newer format', () => {
  it('is refused with both format versions named and what to do, and left as it was', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leadops-newer-'));
    try {
      await withStore(dataDir, 'patched', async (client) => {
        await client
          .db('leadops')
          .collection('things')
          .insertOne({ _id: 'a' as never });
      });
      // The build stamps its own format; one above it is what a newer build would have written.
      const { user_version: current } = onDatabaseFile(dataDir, (file) => file.prepare('PRAGMA user_version').get()) as {
        user_version: number;
      };
      expect(current).toBe(4);
      onDatabaseFile(dataDir, (file) => file.exec(`PRAGMA user_version = ${current + 1}`));

      await expect(withStore(dataDir, 'patched', async () => {})).rejects.toThrow(
        new RegExp(
          `database "leadops" is in data format ${current + 1}, and this FerretDB build \\(leadops patch\\) knows formats up to ${current}: run the newer build of the project that wrote it, or restore a backup`,
        ),
      );
      expect(onDatabaseFile(dataDir, (file) => file.prepare('PRAGMA user_version').get())).toEqual({ user_version: current + 1 });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
