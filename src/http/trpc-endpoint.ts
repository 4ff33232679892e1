import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { AppRouter } from '../router.ts';
import { createRequestContext } from '../trpc/context.ts';

/** The tRPC endpoint for TypeScript clients (`@trpc/client` with the exported AppRouter type). */
export function createTrpcEndpoint(appRouter: AppRouter, options: { rateLimitPerMinute: number; maxBodyBytes: number; onFault: (error: unknown) => void }) {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: options.maxBodyBytes,
    createContext: ({ req }) => createRequestContext(req.headers.authorization, options.rateLimitPerMinute),
    responseMeta: ({ ctx }) => ({ headers: ctx?.responseHeaders ?? {} }),
    onError: ({ error }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') options.onFault(error);
    },
  });
  return (req: IncomingMessage, res: ServerResponse) => handler(req, res);
}
