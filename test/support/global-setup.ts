import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedFerretDb } from '../../src/db/embedded-ferretdb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** mongodb://host:port of the FerretDB every test file uses, each with its own database. */
    mongoServer: string;
    /** The folder through which test files take turns on databases (test/support/database.ts, pooledDatabase). */
    databasePool: string;
  }
}

/** One real FerretDB (SQLite files in a temp dir) for the whole run; never a mock. */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadops-test-db-'));
  const database = await startEmbeddedFerretDb({ dataDir, log: (line) => console.log(line) });
  project.provide('mongoServer', database.uri.replace(/\/[^/]*$/, ''));
  const pool = mkdtempSync(join(tmpdir(), 'leadops-test-pool-'));
  project.provide('databasePool', pool);
  return async () => {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(pool, { recursive: true, force: true });
  };
}
