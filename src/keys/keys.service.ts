import type { Permission } from '../../schema/account.ts';
import type { ApiKeyOut } from '../../schema/keys.ts';
import {
  apiKeyPrefix,
  countUsableApiKeys,
  createApiKey,
  discardApiKey,
  findApiKeys,
  revokeApiKey,
  type ApiKeyView,
  type NewApiKey,
} from '../auth/api-key.service.ts';
import { assertBrandInWorkspace } from '../brands/index.ts';
import { nowMs } from '../clock.ts';
import { AppError, notFound, nullIfNotFound } from '../errors/app-error.ts';
import { planRules, workspaceOwnerId, getWorkspace, getUser } from '../workspaces/index.ts';

const statusOf = (key: ApiKeyView): ApiKeyOut['status'] =>
  key.status === 'revoked' ? 'revoked' : key.expiresAt && key.expiresAt.getTime() <= nowMs() ? 'expired' : 'active';

const toKey = (key: ApiKeyView): ApiKeyOut => ({
  id: key.keyId,
  name: key.name,
  scopes: key.scopes as Permission[],
  status: statusOf(key),
  brand_id: key.brandId ?? null,
  user_id: key.userId,
  hint: `${apiKeyPrefix}…${key.last4 ?? ''}`,
  created_at: key.createdAt.toISOString(),
  expires_at: key.expiresAt?.toISOString() ?? null,
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
});

/** Active keys (revoked and expired ones do not count) against the plan's limit. */
export async function keyAllowance(workspaceId: string): Promise<{ active: number; limit: number }> {
  const [workspace, active] = await Promise.all([getWorkspace(workspaceId), countUsableApiKeys(workspaceId)]);
  return { active, limit: planRules[workspace.plan].activeKeys };
}

/**
 * Makes a key within the plan's limit of active keys. The key is stored
 * first and counted after: when the count (its own included) is past the
 * limit it is removed before its secret is ever shown, so concurrent
 * creations can never end above the limit (at worst both are refused).
 */
/** A key for one of the workspace's members (404 naming `user_id` for anyone else). */
export async function issueMemberKey(input: NewApiKey): Promise<{ key: ApiKeyOut; secret: string }> {
  const member = await getUser(input.workspaceId, input.userId).catch(nullIfNotFound);
  if (!member) throw notFound('Member', 'user_id');
  return issueKey(input);
}

export async function issueKey(input: NewApiKey, brandField = 'brand_id'): Promise<{ key: ApiKeyOut; secret: string }> {
  if (input.expiresAt && input.expiresAt.getTime() <= nowMs()) {
    throw new AppError('validation_failed', 'expires_at: must be in the future', { field: 'expires_at' });
  }
  if (input.brandId) await assertBrandInWorkspace(input.workspaceId, input.brandId, brandField);
  const created = await createApiKey(input);
  const { active, limit } = await keyAllowance(input.workspaceId);
  if (active > limit) {
    await discardApiKey(created.id);
    throw new AppError('key_limit', `The plan allows ${limit} active API keys and ${active - 1} are active: revoke one or upgrade`, {
      used: active - 1,
      limit,
    });
  }
  const [key] = await findApiKeys(input.workspaceId, [created.id]);
  return { key: toKey(key!), secret: created.apiKey };
}

/** A key held by the workspace's owner (the admin CLI, whose flag is `--brand`), under the same limit. */
export async function issueOwnerKey(workspaceId: string, name: string, scopes: Permission[], brandId: string | null = null) {
  return issueKey({ workspaceId, userId: await workspaceOwnerId(workspaceId), name, scopes, brandId }, 'brand');
}

export async function listKeys(workspaceId: string): Promise<ApiKeyOut[]> {
  return (await findApiKeys(workspaceId)).map(toKey);
}

/** Revokes one of the workspace's keys (404 for another workspace's): every surface refuses it from the next request. */
export async function revokeKey(workspaceId: string, id: string): Promise<ApiKeyOut> {
  await revokeApiKey(id, workspaceId);
  const [key] = await findApiKeys(workspaceId, [id]);
  if (!key) throw notFound('API key', 'id');
  return toKey(key);
}
