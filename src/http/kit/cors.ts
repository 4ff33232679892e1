import type { IncomingMessage, ServerResponse } from 'node:http';

const allowedMethods = 'GET, POST, PATCH, DELETE, OPTIONS';
const allowedHeaders = 'Authorization, Content-Type, X-Request-Id';
/** What a browser client may read beyond the simple headers. */
const exposedHeaders = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, X-Request-Id, X-Cache, Age';

/**
 * Cross-origin browser access for the origins in CORS_ORIGINS (`*` for any):
 * their requests get the CORS headers on whatever answers them, and their
 * preflights (OPTIONS with Access-Control-Request-Method) are answered here
 * with 204 (true when it was one). Same-origin pages (/docs) need none of it.
 */
export function createCors(origins: string) {
  const allowed = new Set(
    origins
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
  );
  const allows = (origin: string) => allowed.has('*') || allowed.has(origin);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    res.setHeader('Vary', 'Origin');
    if (origin && allows(origin)) {
      res.setHeader('Access-Control-Allow-Origin', allowed.has('*') ? '*' : origin);
      res.setHeader('Access-Control-Expose-Headers', exposedHeaders);
    }
    if (!preflight) return false;
    if (origin && allows(origin)) {
      res.setHeader('Access-Control-Allow-Methods', allowedMethods);
      res.setHeader('Access-Control-Allow-Headers', allowedHeaders);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    res.writeHead(204).end();
    return true;
  };
}
