import type { Config } from './config.ts';
import { connectDatabase, disconnectDatabase, watchConnection } from './db/connection.ts';
import { startEmbeddedFerretDb, type EmbeddedDatabase } from './db/embedded-ferretdb.ts';
import { log } from './logger.ts';

interface Options {
  /**
   * `start`, `api`, `worker` or `cli`. `start` (API and worker in one process) owns the embedded database alone;
   * `api`, `worker` and the CLI join the one a running process owns, or start it for the others to join.
   */
  role: string;
  /** For a service: called once when the database is gone for good (FerretDB exited, or the connection was lost longer than DATABASE_GRACE_MS). */
  onLost?: (reason: string) => void;
}

/** Connects to MONGODB_URI, or to the embedded FerretDB on SQLite files under DATA_DIR. Returns the shutdown. */
export async function openDatabase(config: Config, options: Options): Promise<() => Promise<void>> {
  // Assigned once the database starts; the lost-handler below closes over it before then.
  let embedded: EmbeddedDatabase | undefined = undefined;
  let lost = false;
  // A connection lost past the grace period may be a FerretDB of ours that runs but hangs: it is stopped (SIGTERM,
  // then SIGKILL) before the service exits, so a restarted service cannot open the files beside it.
  const onLost =
    options.onLost &&
    (async (reason: string) => {
      if (lost) return;
      lost = true;
      await embedded?.stop().catch((error: Error) => log.error(error.message));
      options.onLost!(reason);
    });
  embedded = config.MONGODB_URI
    ? undefined
    : await startEmbeddedFerretDb({
        dataDir: config.DATA_DIR,
        binary: config.FERRETDB_BIN,
        log: (line) => log.info(line),
        role: options.role,
        join: options.role !== 'start',
        onExit: onLost,
      });
  const uri = config.MONGODB_URI ?? embedded!.uri;
  try {
    await connectDatabase(uri, config.DATABASE_TIMEOUT_MS);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const unwatch = onLost ? watchConnection(config.DATABASE_GRACE_MS, onLost) : () => {};
  log.info('database connected', { embedded: Boolean(embedded) });
  return async () => {
    unwatch();
    await disconnectDatabase();
    await embedded?.stop();
  };
}
