import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Config } from '../config.ts';
import { createApp } from './app.ts';
import { createFrontDoor } from './front-door.ts';
import { answerClientError } from './kit/client-errors.ts';
import { nodeRoutes } from './routes.ts';

/**
 * The API's HTTP server: the front door (front-door.ts) on Node's HTTP server, then the routes served on Node's
 * objects or the web surfaces (app.ts). Node also bounds how long a client may take to send its request (408 past
 * REQUEST_TIMEOUT_MS, its headers included) and answers what it cannot parse (answerClientError).
 */
export function createApiServer(config: Config): Server {
  const web = getRequestListener(createApp(config).fetch);
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      // How often Node looks for requests past their time: a tenth of it, so a slow client is cut close to it.
      connectionsCheckingInterval: Math.max(100, Math.floor(config.REQUEST_TIMEOUT_MS / 10)),
    },
    createFrontDoor(config, nodeRoutes, (req, res) => void web(req, res)),
  );
  server.on('clientError', answerClientError);
  return server;
}
