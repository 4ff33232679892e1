const allowedMethods = 'GET, POST, PATCH, DELETE, OPTIONS';
const allowedHeaders = 'Authorization, Content-Type, X-Request-Id';
/** What a browser client may read beyond the simple headers. */
const exposedHeaders = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, X-Request-Id, X-Cache, Age';

/**
 * Cross-origin browser access for the origins in CORS_ORIGINS (`*` for any):
 * their requests get the CORS headers, and their preflights (OPTIONS with
 * Access-Control-Request-Method) are answered with 204: `setHeader` puts the
 * headers on whatever answers the request, and the result is the preflight's
 * answer, if it was one. Same-origin pages (/docs) need none of it.
 */
export function createCors(origins: string) {
  const allowed = new Set(
    origins
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
  );
  const allows = (origin: string) => allowed.has('*') || allowed.has(origin);
  return (request: Request, setHeader: (name: string, value: string) => void): Response | undefined => {
    const origin = request.headers.get('origin');
    const preflight = request.method === 'OPTIONS' && request.headers.has('access-control-request-method');
    setHeader('Vary', 'Origin');
    if (origin && allows(origin)) {
      setHeader('Access-Control-Allow-Origin', allowed.has('*') ? '*' : origin);
      setHeader('Access-Control-Expose-Headers', exposedHeaders);
    }
    if (!preflight) return undefined;
    if (origin && allows(origin)) {
      setHeader('Access-Control-Allow-Methods', allowedMethods);
      setHeader('Access-Control-Allow-Headers', allowedHeaders);
      setHeader('Access-Control-Max-Age', '600');
    }
    return new Response(null, { status: 204 });
  };
}
