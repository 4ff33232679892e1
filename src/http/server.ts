import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Config } from '../config.ts';
import { healthReport } from '../db/store-health.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { logFault, noteRequest, runWithRequestId } from '../logger.ts';
import { queueDepth } from '../jobs/queue.ts';
import { registry, trackQueueDepth } from '../metrics/metrics.ts';
import { domainRoutes } from './routes.ts';
import { appRouter } from './router.ts';
import { answerClientError } from './kit/client-errors.ts';
import { createCors } from './kit/cors.ts';
import { serveDocs } from './surfaces/docs-page.ts';
import { createGraphQLEndpoint } from './surfaces/graphql/graphql-endpoint.ts';
import { createMcpEndpoint } from './surfaces/mcp-endpoint.ts';
import { createOpenApiRoute } from './surfaces/openapi-route.ts';
import { requestIdFor, requestIdHeader } from './kit/request-id.ts';
import { observeRequest } from './kit/request-log.ts';
import { createRestBridge } from './surfaces/rest-bridge.ts';
import { sendJson } from './kit/send-json.ts';
import { createTrpcEndpoint } from './surfaces/trpc-endpoint.ts';

/**
 * The longest URL served. Node refuses only what overflows its header limit
 * (16 KB for the URL and headers together, answered 414 or 431 by
 * answerClientError); a shorter cap keeps URLs within what proxies, caches
 * and logs handle everywhere.
 */
const maxUrlLength = 8_192;

/** The surface a path belongs to, other than REST and the domains' own routes (undefined): also its route label. */
function surfaceOf(pathname: string): string | undefined {
  if (pathname === '/') return '/';
  if (['/healthz', '/metrics', '/openapi.json', '/graphql', '/mcp'].includes(pathname)) return pathname;
  if (pathname === '/docs' || pathname.startsWith('/docs/')) return '/docs';
  if (pathname.startsWith('/trpc/')) return '/trpc';
  return undefined;
}

/** The API's HTTP server: REST under /api, GraphQL, tRPC, MCP, the OAuth server, the OpenAPI document and its reference page. */
export function createApiServer(config: Config): Server {
  const surfaceOptions = { rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, maxBodyBytes: config.MAX_BODY_BYTES, onFault: logFault };
  const rest = createRestBridge(appRouter, surfaceOptions);
  const trpc = createTrpcEndpoint(appRouter, surfaceOptions);
  const graphql = createGraphQLEndpoint(appRouter, {
    ...surfaceOptions,
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxTokens: config.GRAPHQL_MAX_TOKENS,
  });
  const mcp = createMcpEndpoint(appRouter, surfaceOptions);
  const openApi = createOpenApiRoute(appRouter, config.publicBaseUrl);
  const routes = domainRoutes.map((route) => ({ route, handle: route.create(surfaceOptions) }));
  const cors = createCors(config.CORS_ORIGINS);
  if (config.METRICS_ENABLED) trackQueueDepth(queueDepth);

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').length > maxUrlLength) {
      return sendJson(res, 414, { error: `The request URL is longer than ${maxUrlLength} characters`, code: 'uri_too_long' });
    }
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const surface = surfaceOf(pathname);
    // REST routes name themselves once matched (rest-bridge.ts); the rest are named by their surface.
    if (surface) noteRequest({ route: surface });
    switch (surface) {
      case '/':
        // The front door of a browser that opens the server's address: the API reference.
        if (req.method !== 'GET' && req.method !== 'HEAD') break;
        res.writeHead(302, { Location: 'docs' }); // relative: right under whatever path a proxy serves the API
        return res.end();
      case '/healthz': {
        const { status, body } = await healthReport();
        return sendJson(res, status, body);
      }
      case '/metrics':
        if (!config.METRICS_ENABLED) break;
        res.writeHead(200, { 'Content-Type': registry.contentType });
        return res.end(await registry.metrics());
      case '/openapi.json':
        return openApi(req, res);
      case '/docs':
        return serveDocs(req, res, pathname);
      case '/graphql':
        return graphql(req, res);
      case '/trpc':
        return trpc(req, res);
      case '/mcp':
        return mcp(req, res);
    }
    if (surface === undefined) {
      const served = routes.find(({ route }) => route.matches(req, pathname));
      if (served) {
        if (served.route.label) noteRequest({ route: served.route.label(pathname) });
        return served.handle(req, res, pathname);
      }
    }
    return rest(req, res);
  };

  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const requestId = requestIdFor(req);
    // Set before any surface writes its head: writeHead merges it into every response, errors included.
    res.setHeader(requestIdHeader, requestId);
    // Everything the request awaits runs in its scope, so its log lines carry the id.
    runWithRequestId(requestId, () => {
      observeRequest(req, res);
      if (cors(req, res)) return;
      return route(req, res).catch((error: unknown) => {
        logFault(error);
        if (res.headersSent) return res.destroy();
        const { status, body, headers } = toErrorResponse(
          error,
          'standard',
          req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'started',
        );
        sendJson(res, status, body, headers);
      });
    });
  });
  server.on('clientError', answerClientError);
  return server;
}
