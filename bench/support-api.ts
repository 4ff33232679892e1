/** The API served in a bench's own process. */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { loadConfig } from '../src/config.ts';
import { createApiServer } from '../src/http/server.ts';
import { freePort } from '../test/support/processes.ts';

/**
 * The API on a free loopback port, its PUBLIC_BASE_URL its own address (the links and tokens it signs point at it),
 * on the store the bench's process is connected to.
 */
export async function inProcessApi(databaseUri: string): Promise<{ server: Server; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = createApiServer(
    loadConfig({
      MONGODB_URI: databaseUri,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    }),
  );
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return { server, base };
}
