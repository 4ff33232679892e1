import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { toErrorResponse } from '../../errors/error-response.ts';
import type { AppRouter } from '../router.ts';
import { createRequestContext } from '../../trpc/context.ts';
import { errorStyleOf } from '../../trpc/error-styles.ts';
import { readJson } from '../kit/request-body.ts';

/** The tRPC endpoint for TypeScript clients (`@trpc/client` with the exported AppRouter type). */
export function createTrpcEndpoint(
  appRouter: AppRouter,
  options: { rateLimitPerMinute: number; maxBodyBytes: number; onFault: (error: unknown) => void },
) {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    // The body is read by the reader every surface shares (its limit, its answer to a byte-order mark), before
    // tRPC: tRPC takes `req.body` instead of the stream, and answers an error passed on in its own shape.
    middleware: (req: IncomingMessage & { body?: unknown }, _res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') return next();
      readJson(req, options.maxBodyBytes).then(
        (body) => {
          req.body = body?.text;
          next();
        },
        (error: unknown) => {
          // A string body: tRPC reads nothing more of the stream the reader left.
          req.body = '';
          next(error);
        },
      );
    },
    createContext: ({ req }) => createRequestContext(req.headers, options.rateLimitPerMinute),
    responseMeta: ({ ctx, errors, paths }) => {
      // A single call answers with the same HTTP status (and Retry-After) as REST; a batch keeps tRPC's own (207 when mixed).
      const single = errors.length === 1 && (paths?.length ?? 1) === 1;
      const answer = single ? toErrorResponse(errors[0], errorStyleOf(errors[0])) : undefined;
      return { headers: { ...ctx?.responseHeaders, ...answer?.headers }, ...(answer && { status: answer.status }) };
    },
    onError: ({ error }) => {
      if (toErrorResponse(error, errorStyleOf(error)).status >= 500) options.onFault(error);
    },
  });
  return (req: IncomingMessage, res: ServerResponse) => handler(req, res);
}
