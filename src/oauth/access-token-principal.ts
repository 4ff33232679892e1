import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors/app-error.ts';
import { findUserById } from '../workspaces/index.ts';
import { oauthProvider } from './oauth-provider.ts';
import { acceptedAudience, isApiScope } from './oauth-scopes.ts';

/**
 * The principal of an OAuth access token: the user who consented, in their
 * workspace, with the scopes they ticked as permissions. 401 for a token
 * that is unknown, expired, revoked (its grant gone) or issued for another
 * audience (RFC 8707).
 */
export async function principalForAccessToken(value: string): Promise<Principal> {
  const token = await oauthProvider().AccessToken.find(value);
  if (!token) throw new AppError('unauthorized', 'Unknown, expired or revoked access token');
  const audiences = [token.aud ?? []].flat();
  if (!audiences.some((audience) => acceptedAudience(audience))) {
    throw new AppError('unauthorized', 'This access token was issued for another audience');
  }
  // A sender-constrained token is usable only with its proof, which this API does not take: refuse it rather than treat it as a bearer token.
  if (token.isSenderConstrained())
    throw new AppError('unauthorized', 'This access token is bound to a DPoP key; request a bearer token (without a DPoP header) instead');
  const workspaceId =
    typeof token.extra?.workspace_id === 'string' ? token.extra.workspace_id : (await findUserById(token.accountId ?? ''))?.workspaceId;
  if (!workspaceId || !token.accountId) throw new AppError('unauthorized', "The access token's user no longer exists");
  return {
    kind: 'oauth',
    // Public: a hash of the token, never the token itself (GET /api/user shows it; the rate limit counts by it).
    id: `oat_${createHash('sha256').update(value).digest('base64url').slice(0, 16)}`,
    workspaceId,
    userId: token.accountId,
    brandId: null,
    scopes: (token.scope ?? '').split(' ').filter(isApiScope),
    status: 'active',
  };
}
