import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Config } from '../config.ts';
import { createApp } from './app.ts';
import { answerClientError } from './kit/client-errors.ts';

/**
 * The API's HTTP server: the front door (app.ts) on Node's HTTP server, which also bounds how long a client may
 * take to send its request (408 past REQUEST_TIMEOUT_MS, its headers included) and answers what it cannot parse
 * (answerClientError).
 */
export function createApiServer(config: Config): Server {
  const server = createAdaptorServer({
    fetch: createApp(config).fetch,
    serverOptions: {
      keepAliveTimeout: 65_000,
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      // How often Node looks for requests past their time: a tenth of it, so a slow client is cut close to it.
      connectionsCheckingInterval: Math.max(100, Math.floor(config.REQUEST_TIMEOUT_MS / 10)),
    },
  }) as Server;
  server.on('clientError', answerClientError);
  return server;
}
