import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { toErrorResponse } from '../../errors/error-response.ts';
import { createRequestContext } from '../../trpc/context.ts';
import { errorStyleOf } from '../../trpc/error-styles.ts';
import { readJson } from '../../web/request-body.ts';
import type { AppRouter } from '../router.ts';

/**
 * The request with its body as read by the reader every surface shares (its limit, its answer to a byte-order
 * mark), for tRPC to parse; or the reader's refusal.
 */
async function withBodyRead(request: Request, maxBodyBytes: number): Promise<{ request: Request; refusal?: unknown }> {
  if (request.method === 'GET' || request.method === 'HEAD') return { request };
  const read = (body: string, refusal?: unknown) => ({
    request: new Request(request.url, { method: request.method, headers: request.headers, body }),
    refusal,
  });
  return readJson(request, maxBodyBytes).then(
    (json) => read(json?.text ?? ''),
    (error: unknown) => read('', error),
  );
}

/** The tRPC endpoint for TypeScript clients (`@trpc/client` with the exported AppRouter type). */
export function createTrpcEndpoint(
  appRouter: AppRouter,
  options: { rateLimitPerMinute: number; maxBodyBytes: number; onFault: (error: unknown) => void },
) {
  return async (received: Request): Promise<Response> => {
    const { request, refusal } = await withBodyRead(received, options.maxBodyBytes);
    return fetchRequestHandler({
      endpoint: '/trpc',
      req: request,
      router: appRouter,
      // A refused body fails the call before any procedure runs, answered by tRPC in its own shape.
      createContext: () => {
        if (refusal) throw refusal;
        return createRequestContext(request.headers, options.rateLimitPerMinute);
      },
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
  };
}
