import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { settings, type Config } from '../config.ts';
import { healthReport } from '../db/store-health.ts';
import { requestStage } from '../errors/database-faults.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { queueDepth } from '../jobs/queue.ts';
import { logFault, noteRequest } from '../logger.ts';
import { registry, trackQueueDepth } from '../metrics/metrics.ts';
import { jsonAnswer } from '../web/answers.ts';
import { firstForwarded } from './front-door.ts';
import { appRouter } from './router.ts';
import { domainRoutes } from './routes.ts';
import { serveDocs } from './surfaces/docs-page.ts';
import { createGraphQLEndpoint } from './surfaces/graphql/graphql-endpoint.ts';
import { createMcpEndpoint } from './surfaces/mcp-endpoint.ts';
import { createOpenApiRoute } from './surfaces/openapi-route.ts';
import { createRestBridge } from './surfaces/rest-bridge.ts';
import { createTrpcEndpoint } from './surfaces/trpc-endpoint.ts';

type Env = { Bindings: HttpBindings };

/** The calling client's address: the proxy's X-Forwarded-For first entry when TRUST_PROXY is on, else the socket's peer. */
function clientAddress(c: Context<Env>): string {
  const first = firstForwarded(c.env.incoming.headers['x-forwarded-for']);
  if (settings().TRUST_PROXY && first) return first;
  return c.env.incoming.socket.remoteAddress ?? 'unknown';
}

/**
 * The web surfaces (Hono), behind the front door (front-door.ts): REST under /api, GraphQL, tRPC, MCP, the domains'
 * own routes (OAuth, downloads), the OpenAPI document and its reference page; an error no surface answered gets the
 * standard JSON body. Each surface reads bodies with the one reader (src/web/request-body.ts).
 */
export function createApp(config: Config) {
  const surfaceOptions = { rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, maxBodyBytes: config.MAX_BODY_BYTES, onFault: logFault };
  const rest = createRestBridge(appRouter, surfaceOptions);
  const trpc = createTrpcEndpoint(appRouter, surfaceOptions);
  const graphql = createGraphQLEndpoint(appRouter, {
    ...surfaceOptions,
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxTokens: config.GRAPHQL_MAX_TOKENS,
  });
  const mcp = createMcpEndpoint(appRouter, surfaceOptions);
  const openApi = createOpenApiRoute(appRouter);
  const routes = domainRoutes.map((route) => ({ route, handle: route.create(surfaceOptions) }));
  if (config.METRICS_ENABLED) trackQueueDepth(queueDepth);

  const app = new Hono<Env>();

  app.onError((error, c) => {
    logFault(error);
    if (c.env.outgoing.headersSent) {
      c.env.outgoing.destroy();
      return RESPONSE_ALREADY_SENT;
    }
    const { status, body, headers } = toErrorResponse(error, 'standard', requestStage(c.req.method));
    return jsonAnswer(status, body, headers);
  });

  /** A surface's route, named in logs and metrics by its label (REST routes name themselves once matched). */
  const surface = (label: string, handle: (c: Context<Env>) => Response | Promise<Response>) => (c: Context<Env>) => {
    noteRequest({ route: label });
    return handle(c);
  };

  // The front door of a browser that opens the server's address: the API reference (relative, right under whatever
  // path a proxy serves the API at).
  app.on(
    ['GET', 'HEAD'],
    '/',
    surface('/', () => new Response(null, { status: 302, headers: { Location: 'docs' } })),
  );
  app.all(
    '/healthz',
    surface('/healthz', async () => {
      const { status, body } = await healthReport();
      return jsonAnswer(status, body);
    }),
  );
  if (config.METRICS_ENABLED)
    app.all(
      '/metrics',
      surface('/metrics', async () => new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType } })),
    );
  // [path pattern, the route the request log names, the surface]
  const surfaces: Array<[string, string, (c: Context<Env>) => Response | Promise<Response>]> = [
    ['/openapi.json', '/openapi.json', (c) => openApi(c.req.raw)],
    ['/docs', '/docs', (c) => serveDocs(c.req.path)],
    ['/docs/*', '/docs', (c) => serveDocs(c.req.path)],
    ['/graphql', '/graphql', (c) => graphql(c.req.raw)],
    ['/trpc/*', '/trpc', (c) => trpc(c.req.raw)],
    ['/mcp', '/mcp', (c) => mcp(c.req.raw)],
  ];
  for (const [path, label, serve] of surfaces) app.all(path, surface(label, serve));

  // The domains' own routes, asked in turn, then the REST bridge.
  app.all('*', async (c) => {
    const url = new URL(c.req.url);
    const served = routes.find(({ route }) => route.matches(c.req.raw, url));
    if (!served) return rest(c.req.raw);
    if (served.route.label) noteRequest({ route: served.route.label(url.pathname) });
    const { incoming: req, outgoing: res } = c.env;
    return (await served.handle(c.req.raw, { clientAddress: clientAddress(c), node: { req, res } })) ?? RESPONSE_ALREADY_SENT;
  });

  return app;
}
