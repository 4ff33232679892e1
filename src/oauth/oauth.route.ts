import type { IncomingMessage } from 'node:http';
import { baseUrl } from '../config.ts';
import { consumeRateLimit } from '../rate-limit/rate-limit.service.ts';
import { jsonAnswer } from '../web/answers.ts';
import { defineDomainRoute, type RouteContext } from '../web/domain-route.ts';
import { serveInteraction } from './interactions.route.ts';
import { oauthHandler, oauthProvider, oauthRoutes } from './oauth-provider.ts';
import { apiResource, apiScopes, isApiScope, mcpResource } from './oauth-scopes.ts';

/** RFC 9728: what a client needs to get a token for `resource` (the API, or its MCP endpoint). */
const protectedResourceMetadata = (resource: string) => ({
  resource,
  authorization_servers: [baseUrl()],
  scopes_supported: apiScopes,
  bearer_methods_supported: ['header'],
  resource_name: 'Lead, Outreach, Agent and Scraping API',
  resource_documentation: `${baseUrl()}/docs`,
});

/** Open registration needs no credential: each client address may register this many clients a minute. */
const registrationsPerMinute = 20;

/** True for the paths this module serves: /oauth/… and the OAuth well-known documents. */
export const isOAuthPath = (pathname: string) =>
  pathname.startsWith('/oauth/') ||
  /^\/\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)(\/|$)/.test(pathname);

/**
 * An authorization request that names none of the API's scopes asks for all
 * of them (the user unticks what they do not want on the consent page): a
 * token with no permission at all is of no use to anybody.
 */
function withDefaultScopes(req: IncomingMessage) {
  const url = new URL(req.url ?? '/', 'http://x');
  const scopes = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
  if (scopes.some(isApiScope)) return;
  url.searchParams.set('scope', [...scopes, ...apiScopes].join(' '));
  req.url = `${url.pathname}${url.search}`;
}

/**
 * The OAuth 2.1 authorization server (oidc-provider) and its metadata:
 * RFC 8414 at /.well-known/oauth-authorization-server (also path-suffixed,
 * and as OpenID discovery), RFC 9728 at /.well-known/oauth-protected-resource
 * (and …/mcp for the MCP endpoint), the sign-in and consent pages, and the
 * provider's endpoints under /oauth. oidc-provider answers on Node's request
 * and response, which the server hands over (context.node).
 */
export async function serveOAuth(request: Request, context: RouteContext): Promise<Response | undefined> {
  const { pathname } = new URL(request.url);
  const { req, res } = context.node;
  if (pathname === '/.well-known/oauth-protected-resource') return jsonAnswer(200, protectedResourceMetadata(apiResource()));
  if (pathname === '/.well-known/oauth-protected-resource/mcp') return jsonAnswer(200, protectedResourceMetadata(mcpResource()));
  if (pathname.startsWith('/.well-known/oauth-protected-resource/'))
    return jsonAnswer(404, { error: 'No such protected resource', code: 'not_found' });
  const provider = oauthProvider();
  const interaction = /^\/oauth\/interaction\/([\w-]+)(?:\/(login|consent))?$/.exec(pathname);
  if (interaction) {
    await serveInteraction(provider, request, context, interaction[2]);
    return undefined;
  }
  // One authorization server whatever path suffix a client appends (RFC 8414 section 3.1, OpenID discovery alike).
  if (pathname.startsWith('/.well-known/')) req.url = '/.well-known/openid-configuration';
  if (pathname === oauthRoutes.authorization && req.method === 'GET') withDefaultScopes(req);
  if (pathname === oauthRoutes.registration && req.method === 'POST') {
    const decision = await consumeRateLimit(`oauth-registration:${context.clientAddress}`, registrationsPerMinute);
    if (!decision.allowed) {
      const description = `At most ${registrationsPerMinute} client registrations a minute from one address`;
      return jsonAnswer(429, { error: 'rate_limited', error_description: description }, { 'Retry-After': String(decision.resetSeconds) });
    }
  }
  await oauthHandler()(req, res);
  return undefined;
}

/** The authorization server and its metadata documents. */
export const oauthRoute = defineDomainRoute({
  label: () => '/oauth',
  matches: (_request, { pathname }) => isOAuthPath(pathname),
  create: () => serveOAuth,
});
