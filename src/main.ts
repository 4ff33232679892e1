import type { Server } from 'node:http';
import { baseUrl, loadConfig, type Config } from './config.ts';
import { openDatabase } from './database.ts';
import { log, setLogLevel } from './logger.ts';
import { secretsKey } from './secrets/secrets-key.ts';

const roles = ['start', 'api', 'worker'] as const;
type Role = (typeof roles)[number];

/** A start that cannot go on, said in one line on stderr (no stack: the message says what to do). */
class StartError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `port ${config.PORT} on ${config.HOST}`;
      if (error.code === 'EADDRINUSE')
        fail(new StartError(`Cannot listen: ${where} is already in use. Stop the process using it, or set PORT to a free port.`));
      else if (error.code === 'EACCES')
        fail(new StartError(`Cannot listen: ${where} needs privileges this process lacks. Set PORT above 1023.`));
      else fail(new StartError(`Cannot listen on ${where}: ${error.message}`));
    });
    server.listen(config.PORT, config.HOST, done);
  });
}

/** The database is gone for good: one line, and a non-zero exit so a supervisor restarts the service. */
function databaseLost(reason: string) {
  log.error(`database lost: ${reason}; exiting`);
  process.exit(1);
}

/**
 * `start` runs the API and the job worker in one process (the embedded
 * default); `api` and `worker` run them apart, as many of each as a
 * deployment wants, sharing the database.
 */
async function main(role: Role) {
  let config: Config;
  try {
    config = loadConfig();
    // The key inbox passwords are sealed with: a missing one (MONGODB_URI without SECRETS_KEY) stops the start here.
    secretsKey(config);
  } catch (error) {
    throw new StartError((error as Error).message, 2);
  }
  setLogLevel(config.LOG_LEVEL);
  // Stopped while starting: nothing serves yet; on exit the embedded FerretDB is killed, then the folder's lock freed.
  let shutdown: (signal: string) => unknown = () => process.exit(0);
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const closeDatabase = await openDatabase(config, { role, onLost: databaseLost });
  const stops: Array<() => Promise<void>> = [];
  try {
    // The port first: a busy one stops the start before the worker takes any job.
    if (role === 'start' || role === 'api') {
      // Each role loads only its own half: a worker never holds the surfaces, an API process never the crawlers.
      const { createApiServer } = await import('./http/server.ts');
      const server: Server = createApiServer(config);
      await listen(server, config);
      const address = server.address();
      log.info('api listening', { port: typeof address === 'object' && address ? address.port : config.PORT });
      stops.push(() => new Promise<void>((done) => server.close(() => done())));
    }
    if (role === 'start' || role === 'worker') {
      if (!config.PUBLIC_BASE_URL)
        log.warn('PUBLIC_BASE_URL is not set: unsubscribe and open links in outgoing mail point at this host', { base: baseUrl(config) });
      if (!config.SEARCH_URL)
        log.warn('SEARCH_URL is not set: agent runs cannot search the web, and with no language model they fail at once');
      const { startWorker } = await import('./worker/worker.ts');
      const worker = await startWorker({ concurrency: config.WORKER_CONCURRENCY });
      stops.push(worker.stop);
    }
  } catch (error) {
    for (const stop of stops) await stop();
    await closeDatabase();
    throw error;
  }

  let stopping = false;
  shutdown = async (signal: string) => {
    // npm passes a terminal's Ctrl-C on to the process that already got it: one shutdown is enough.
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    for (const stop of stops) await stop();
    await closeDatabase();
    process.exit(0);
  };
}

const role = (process.argv[2] ?? 'start') as Role;
if (!roles.includes(role)) {
  console.error(`Unknown role "${role}": use ${roles.join(', ')}`);
  process.exit(2);
}
main(role).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof StartError ? error.exitCode : 1);
});
