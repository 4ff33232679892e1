import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError } from 'graphql';
import { createYoga, maskError } from 'graphql-yoga';
import { toErrorResponse } from '../../../errors/error-response.ts';
import type { AppRouter } from '../../router.ts';
import { createRequestContext } from '../../../trpc/context.ts';
import { readJson } from '../../kit/request-body.ts';
import { sendJson } from '../../kit/send-json.ts';
import { buildGraphQLSchema, type GraphQLContext } from './graphql-schema.ts';
import { queryLimitPlugins, type QueryLimits } from './query-limits.ts';

interface ServerContext {
  req: IncomingMessage;
  res: ServerResponse;
  requestContext: GraphQLContext['requestContext'];
  exposeHeaders: GraphQLContext['exposeHeaders'];
}

interface Options extends QueryLimits {
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  onFault: (error: unknown) => void;
}

/** GraphQL at /graphql (graphql-yoga), with GraphiQL served from local assets. */
export function createGraphQLEndpoint(appRouter: AppRouter, options: Options) {
  const yoga = createYoga<ServerContext>({
    schema: buildGraphQLSchema(appRouter, options.onFault),
    graphqlEndpoint: '/graphql',
    renderGraphiQL,
    // Every query needs a credential: the header editor opens with the Authorization header to fill in.
    graphiql: {
      title: 'Lead API GraphQL',
      headers: JSON.stringify({ Authorization: 'Bearer <your API key or OAuth access token>' }, null, 2),
      defaultEditorToolsVisibility: 'headers',
      defaultQuery:
        '# Put your API key in the Authorization header below (Headers), then run this query.\n{\n  leadsCapacity {\n    used\n    limit\n  }\n}\n',
    },
    landingPage: false,
    logging: false,
    plugins: queryLimitPlugins(options),
    maskedErrors: {
      // What yoga masks is a fault outside the resolvers (which report their own): logged, as every surface logs
      // its faults, and answered as the resolvers answer theirs.
      maskError: (error, message, isDev): Error => {
        if (maskError(error, message, isDev) === error) return error as Error;
        options.onFault(error);
        const { status, body } = toErrorResponse(error instanceof GraphQLError ? (error.originalError ?? error) : error);
        return new GraphQLError(body.error, { extensions: { ...body, status, http: { status } } });
      },
    },
    // Cross-origin access is decided once for every surface (src/http/kit/cors.ts); yoga's own default allows any origin.
    cors: false,
  });
  return async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // The body is read by the reader every surface shares; yoga takes it from `req.body`, not the stream.
      try {
        req.body = (await readJson(req, options.maxBodyBytes))?.text;
      } catch (error) {
        const { status, body, headers } = toErrorResponse(error);
        if (status >= 500) options.onFault(error);
        return sendJson(res, status, { errors: [{ message: body.error, extensions: { ...body, status } }] }, headers);
      }
    }
    return yoga.handle(req, res, {
      req,
      res,
      requestContext: createRequestContext(req.headers, options.rateLimitPerMinute),
      exposeHeaders: (headers) => {
        for (const [name, value] of Object.entries(headers)) if (!res.headersSent) res.setHeader(name, value);
      },
    });
  };
}
