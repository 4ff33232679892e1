import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { startEmbeddedFerretDb, type EmbeddedDatabase } from '../../src/db/embedded-ferretdb.ts';
import { ensureFerretDbBinary, type FerretDbBuild } from '../../src/db/ferretdb-binary.ts';

/** One build of FerretDB on a data folder of its own, which it can be stopped and started again on. */
class Store {
  private readonly build: FerretDbBuild;
  private readonly dataDir: string;
  private server?: EmbeddedDatabase;
  private client?: MongoClient;
  db!: Db;

  constructor(build: FerretDbBuild) {
    this.build = build;
    this.dataDir = mkdtempSync(join(tmpdir(), `leadops-${build}-`));
  }

  async start() {
    const binary = ensureFerretDbBinary(() => {}, undefined, this.build);
    this.server = await startEmbeddedFerretDb({ dataDir: this.dataDir, binary, log: () => {}, role: 'test' });
    this.client = await MongoClient.connect(this.server.uri);
    this.db = this.client.db('differential');
  }

  async stop() {
    await this.client?.close();
    await this.server?.stop();
    this.client = this.server = undefined;
  }

  async remove() {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * The patched FerretDB and FerretDB as published, each on a folder of its own, for the differential tests:
 * `patched` and `published` are their databases (new handles after a `restart`, which stops both and starts them
 * again on the same folders, as a service restarting would).
 */
export async function startStorePair() {
  const stores = { patched: new Store('patched'), published: new Store('upstream') };
  await Promise.all([stores.patched.start(), stores.published.start()]);
  return {
    get patched() {
      return stores.patched.db;
    },
    get published() {
      return stores.published.db;
    },
    async restart() {
      await Promise.all([stores.patched.stop(), stores.published.stop()]);
      await Promise.all([stores.patched.start(), stores.published.start()]);
    },
    async stop() {
      await Promise.all([stores.patched.remove(), stores.published.remove()]);
    },
  };
}

export type StorePair = Awaited<ReturnType<typeof startStorePair>>;
