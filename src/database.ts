import type { Config } from './config.ts';
import { connectDatabase, disconnectDatabase } from './db/connection.ts';
import { startEmbeddedFerretDb } from './db/embedded-ferretdb.ts';
import { log } from './logger.ts';

/** Connects to MONGODB_URI, or to the embedded FerretDB on SQLite files under DATA_DIR. Returns the shutdown. */
export async function openDatabase(config: Config): Promise<() => Promise<void>> {
  const embedded = config.MONGODB_URI
    ? undefined
    : await startEmbeddedFerretDb({ dataDir: config.DATA_DIR, binary: config.FERRETDB_BIN, log: (line) => log.info(line) });
  const uri = config.MONGODB_URI ?? embedded!.uri;
  await connectDatabase(uri);
  log.info('database connected', { embedded: Boolean(embedded) });
  return async () => {
    await disconnectDatabase();
    await embedded?.stop();
  };
}
