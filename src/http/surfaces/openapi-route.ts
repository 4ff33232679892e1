import { authenticate } from '../../auth/authenticate.ts';
import { baseUrl } from '../../config.ts';
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
export function createOpenApiRoute(appRouter: AppRouter) {
  const document = buildOpenApiDocument(appRouter, '.');
  // The server is absolute (generators make it the client's base URL): PUBLIC_BASE_URL, or the origin the request was addressed to.
  const shared = (server: string) => JSON.stringify({ ...document, servers: [{ url: server }] });
  let cached = { server: '', json: '' };

  const documentFor = async (authorization: string | undefined) => {
    const server = baseUrl();
    if (cached.server !== server) cached = { server, json: shared(server) };
    if (!authorization) return cached.json;
    const principal = await authenticate(authorization).catch((error: unknown) => {
      // A bad key only loses the workspace's part; a database fault is a fault (500, logged).
      if (error instanceof AppError && error.code === 'unauthorized') return null;
      throw error;
    });
    if (!principal) return cached.json;
    return JSON.stringify({ ...withPublishedEndpoints(document, await listEndpoints(principal.workspaceId)), servers: [{ url: server }] });
  };

  return async function serveOpenApi(request: Request): Promise<Response> {
    const body = await documentFor(request.headers.get('authorization') ?? undefined);
    return new Response(body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  };
}
