import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Config } from '../config.ts';
import { databaseReady } from '../db/connection.ts';
import { logFault } from '../logger.ts';
import { appRouter } from '../router.ts';
import { serveDocs } from './docs-page.ts';
import { createGraphQLEndpoint } from './graphql/graphql-endpoint.ts';
import { createRequestContext } from '../trpc/context.ts';
import { createCallerFactory } from '../trpc/init.ts';
import { buildOpenApiDocument, withPublishedEndpoints } from './openapi.ts';
import { createRestBridge } from './rest-bridge.ts';
import { sendJson } from './send-json.ts';
import { createTrpcEndpoint } from './trpc-endpoint.ts';

/** The API's HTTP server: REST under /api, GraphQL, tRPC, the OpenAPI document and its reference page. */
export function createApiServer(config: Config): Server {
  const surfaceOptions = { rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, maxBodyBytes: config.MAX_BODY_BYTES, onFault: logFault };
  const rest = createRestBridge(appRouter, surfaceOptions);
  const trpc = createTrpcEndpoint(appRouter, surfaceOptions);
  const graphql = createGraphQLEndpoint(appRouter, surfaceOptions);
  const openApiDocument = buildOpenApiDocument(appRouter, config.publicBaseUrl);
  const openApiJson = JSON.stringify(openApiDocument);
  const createCaller = createCallerFactory(appRouter);
  /** With a key, the document also types that workspace's published endpoints; without one (or a bad one), the shared document. */
  const openApiFor = async (authorization: string | undefined) => {
    if (!authorization) return openApiJson;
    const endpoints = await createCaller(createRequestContext(authorization, config.RATE_LIMIT_PER_MINUTE)).endpoints.list().catch(() => null);
    return endpoints ? JSON.stringify(withPublishedEndpoints(openApiDocument, endpoints)) : openApiJson;
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    if (pathname === '/healthz') {
      const ready = databaseReady();
      return sendJson(res, ready ? 200 : 503, { ok: ready });
    }
    if (pathname === '/openapi.json') {
      const body = await openApiFor(req.headers.authorization);
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
      return res.end(body);
    }
    if (pathname === '/docs' || pathname.startsWith('/docs/')) return serveDocs(req, res, pathname);
    if (pathname === '/graphql') return graphql(req, res);
    if (pathname.startsWith('/trpc/')) return trpc(req, res);
    return rest(req, res);
  };

  return createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    route(req, res).catch((error: unknown) => {
      logFault(error);
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error', code: 'internal_error' });
      else res.destroy();
    });
  });
}
