import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError } from 'graphql';
import { createYoga, maskError } from 'graphql-yoga';
import { toErrorResponse } from '../../../errors/error-response.ts';
import { createRequestContext } from '../../../trpc/context.ts';
import { jsonAnswer } from '../../../web/answers.ts';
import { readJson } from '../../../web/request-body.ts';
import type { AppRouter } from '../../router.ts';
import { buildGraphQLSchema, type GraphQLContext } from './graphql-schema.ts';
import { argumentErrorsPlugin } from './argument-errors.ts';
import { queryLimitPlugins, type QueryLimits } from './query-limits.ts';

interface Options extends QueryLimits {
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  onFault: (error: unknown) => void;
}

/** GraphQL at /graphql (graphql-yoga), with GraphiQL served from local assets. */
export function createGraphQLEndpoint(appRouter: AppRouter, options: Options) {
  const yoga = createYoga<GraphQLContext>({
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
    plugins: [...queryLimitPlugins(options), argumentErrorsPlugin],
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
  return async (request: Request): Promise<Response> => {
    let read = request;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // The body is read by the reader every surface shares, and handed to yoga as the request's text.
      try {
        const body = (await readJson(request, options.maxBodyBytes))?.text ?? '';
        read = new Request(request.url, { method: request.method, headers: request.headers, body });
      } catch (error) {
        const { status, body, headers } = toErrorResponse(error);
        if (status >= 500) options.onFault(error);
        return jsonAnswer(status, { errors: [{ message: body.error, extensions: { ...body, status } }] }, headers);
      }
    }
    const requestContext = createRequestContext(request.headers, options.rateLimitPerMinute);
    const response = await yoga.fetch(read, { requestContext });
    // The procedures' response headers (rate limit, Retry-After) on the answer.
    for (const [name, value] of Object.entries(requestContext.responseHeaders)) response.headers.set(name, value);
    return response;
  };
}
