import type { Permission } from '../../schema/account.ts';
import { AppError } from '../errors/app-error.ts';

/**
 * Who is calling, whatever the credential: an API key or an OAuth access
 * token (`authenticate()` tells them apart). Rate limits, permissions and
 * brand scoping read this and nothing else.
 */
export interface Principal {
  kind: 'api_key' | 'oauth';
  /** The credential's public id (an API key's id; for an OAuth token, `oat_` and a hash of it). */
  id: string;
  workspaceId: string;
  userId: string;
  /** The brand the credential is bound to; null acts on the workspace's default brand. */
  brandId: string | null;
  scopes: Permission[];
  status: 'active' | 'revoked';
}

/** The rate limit counts per credential, across every surface. */
export const rateLimitKey = (principal: Principal) => `${principal.kind}:${principal.id}`;

export function assertPermission(principal: Principal, needed: Permission) {
  if (principal.scopes.includes('*') || principal.scopes.includes(needed)) return;
  throw new AppError('missing_permission', `This credential lacks the "${needed}" permission`, { permission: needed });
}
