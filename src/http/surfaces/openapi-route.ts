import { authenticate } from '../../auth/authenticate.ts';
import { listEndpoints } from '../../endpoints/index.ts';
import { AppError } from '../../errors/app-error.ts';
import type { AppRouter } from '../router.ts';
import { buildOpenApiDocument, withPublishedEndpoints } from './openapi.ts';

/**
 * GET /openapi.json. Without a key, or with one that does not authenticate,
 * the shared document. With a valid key, whatever its permissions, the
 * document also types that workspace's published endpoints at their own
 * paths: the key is checked and the endpoints read directly, not through the
 * `endpoints.list` procedure, so a key holding only `endpoints:invoke` (the
 * one that calls them) sees them, and fetching the document spends none of
 * the key's rate limit.
 */
export function createOpenApiRoute(appRouter: AppRouter, publicBaseUrl: string) {
  const document = buildOpenApiDocument(appRouter, publicBaseUrl);
  const sharedJson = JSON.stringify(document);

  const documentFor = async (authorization: string | undefined) => {
    if (!authorization) return sharedJson;
    const principal = await authenticate(authorization).catch((error: unknown) => {
      // A bad key only loses the workspace's part; a database fault is a fault (500, logged).
      if (error instanceof AppError && error.code === 'unauthorized') return null;
      throw error;
    });
    if (!principal) return sharedJson;
    return JSON.stringify(withPublishedEndpoints(document, await listEndpoints(principal.workspaceId)));
  };

  return async function serveOpenApi(request: Request): Promise<Response> {
    const body = await documentFor(request.headers.get('authorization') ?? undefined);
    return new Response(body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  };
}
