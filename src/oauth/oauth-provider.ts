import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { baseUrl, settings } from '../config.ts';
import { log, logFault } from '../logger.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';
import { signingKey } from '../secrets/secret-box.ts';
import { findUserById } from '../workspaces/index.ts';
import { OAuthAdapter } from './oauth-adapter.ts';
import { errorPage } from './oauth-pages.ts';
import { acceptedAudience, apiResource, apiScopes } from './oauth-scopes.ts';
import { derivedSigningJwk } from './signing-keys.ts';

const day = 24 * 3600;

/** Where the provider's own endpoints live (the interaction pages under /oauth/interaction are the service's). */
export const oauthRoutes = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  pushed_authorization_request: '/oauth/par',
} as const;

function configuration(): Configuration {
  return {
    adapter: OAuthAdapter,
    findAccount: async (_ctx, sub) => {
      const user = await findUserById(sub);
      return user ? { accountId: sub, claims: () => ({ sub, email: user.email }) } : undefined;
    },
    claims: { openid: ['sub'], email: ['email'] },
    // The user's workspace goes with each access token, so using one needs no second read.
    extraTokenClaims: async (_ctx, token) => {
      const user = 'accountId' in token && token.accountId ? await findUserById(token.accountId) : null;
      return user ? { workspace_id: user.workspaceId } : undefined;
    },
    scopes: ['openid', 'offline_access', 'email', ...apiScopes],
    routes: oauthRoutes,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    cookies: { keys: [signingKey('oauth/cookies').toString('base64url')] },
    jwks: { keys: [derivedSigningJwk()] },
    // Authorization code with PKCE (S256, the only method the library offers) for every client.
    responseTypes: ['code'],
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      RefreshToken: 30 * day,
      Interaction: 3600,
      Session: 14 * day,
      Grant: 90 * day,
      IdToken: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // A client revokes only its own tokens.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      // Pushed authorization requests (RFC 9126): the request goes to /oauth/par first, the browser carries only its request_uri.
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false },
      // No DPoP (RFC 9449): MCP's authorization spec has clients send `Authorization: Bearer`, and a server that
      // advertises DPoP must check every proof on every surface. Off, nothing advertises it and every token is a bearer token.
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiResource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          const audience = acceptedAudience(resource);
          if (!audience) throw new errors.InvalidTarget(`this server issues tokens for ${apiResource()} only`);
          return { scope: apiScopes.join(' '), audience, accessTokenTTL: 3600, accessTokenFormat: 'opaque' };
        },
      },
    },
    // Client ID Metadata Documents are fetched through the outbound address guard like every other call.
    fetch: (url, options) => guardedFetch(url, { ...options, dispatcher: undefined } as RequestInit),
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = errorPage('Sign-in could not go on', `${out.error}: ${out.error_description ?? ''}`);
    },
  };
}

type Served = { provider: Provider; handler: ReturnType<Provider['callback']> };
/** One authorization server per issuer; without PUBLIC_BASE_URL the issuer follows the request's origin, so a few are kept. */
const byIssuer = new Map<string, Served>();
const maxIssuers = 8;

function served(): Served {
  const issuer = baseUrl();
  const known = byIssuer.get(issuer);
  if (known) return known;
  const provider = new Provider(issuer, configuration());
  // Behind a TLS-terminating proxy the issuer is https while the connection here is not: the proxy says so.
  provider.proxy = settings().TRUST_PROXY;
  provider.on('server_error', (_ctx: unknown, error: Error) => logFault(error));
  provider.on('grant.revoked', (_ctx: unknown, grantId: string) => log.info('oauth grant revoked', { grantId }));
  const entry = { provider, handler: provider.callback() };
  if (byIssuer.size >= maxIssuers) byIssuer.delete(byIssuer.keys().next().value!);
  byIssuer.set(issuer, entry);
  return entry;
}

/** The authorization server, its issuer the API's public base URL (PUBLIC_BASE_URL, or the origin the request was addressed to). */
export function oauthProvider(): Provider {
  return served().provider;
}

/** The provider's own request handler (token, registration, revocation, discovery, …). */
export function oauthHandler(): ReturnType<Provider['callback']> {
  return served().handler;
}
