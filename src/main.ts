import type { Server } from 'node:http';
import { loadConfig } from './config.ts';
import { openDatabase } from './database.ts';
import { createApiServer } from './http/server.ts';
import { log, setLogLevel } from './logger.ts';
import { startWorker } from '../jobs/worker.ts';

const roles = ['start', 'api', 'worker'] as const;
type Role = (typeof roles)[number];

/**
 * `start` runs the API and the job worker in one process (the embedded
 * default); `api` and `worker` run them apart, as many of each as a
 * deployment wants, sharing the database.
 */
async function main(role: Role) {
  const config = loadConfig();
  setLogLevel(config.LOG_LEVEL);
  const closeDatabase = await openDatabase(config);
  const stops: Array<() => Promise<void>> = [];

  if (role === 'start' || role === 'worker') {
    const worker = await startWorker({ concurrency: config.WORKER_CONCURRENCY });
    stops.push(worker.stop);
  }
  if (role === 'start' || role === 'api') {
    const server: Server = createApiServer(config);
    await new Promise<void>((done) => server.listen(config.PORT, config.HOST, done));
    const address = server.address();
    log.info('api listening', { port: typeof address === 'object' && address ? address.port : config.PORT });
    stops.unshift(() => new Promise<void>((done) => server.close(() => done())));
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    for (const stop of stops) await stop();
    await closeDatabase();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

const role = (process.argv[2] ?? 'start') as Role;
if (!roles.includes(role)) {
  console.error(`Unknown role "${role}": use ${roles.join(', ')}`);
  process.exit(2);
}
main(role).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
