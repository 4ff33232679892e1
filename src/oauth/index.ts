/** The OAuth domain's front door: access tokens as credentials, its routes, and the pruning of its records. */
export { principalForAccessToken } from './access-token-principal.ts';
export { oauthRetention, revokeUserOAuth } from './oauth-adapter.ts';
export { oauthRoute } from './oauth.route.ts';
