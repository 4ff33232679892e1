import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.ts';
import { connectDatabase } from '../../src/db/connection.ts';
import { logToStderr, setLogLevel } from '../../src/logger.ts';

/**
 * For a worker script a test spawns (MONGODB_URI, SECRETS_KEY and the
 * like in its environment): connects to the database, logs warnings on
 * stderr, prints `ready`, and resolves on the first line on stdin, so the
 * test starts several workers' work together.
 */
export async function connectAndWaitForGo(): Promise<void> {
  const config = loadConfig();
  logToStderr();
  setLogLevel('warn');
  await connectDatabase(config.MONGODB_URI!);
  console.log('ready');
  const stdin = createInterface({ input: process.stdin });
  await new Promise((go) => stdin.once('line', go));
  stdin.close();
}
