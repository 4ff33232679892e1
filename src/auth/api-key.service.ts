import { createHash, randomInt } from 'node:crypto';
import { permissions, type Permission } from '../../schema/account.ts';
import { now } from '../clock.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { ApiKey, ApiKeyUsage, type ApiKeyDoc } from './api-key.model.ts';
import type { Principal } from './principal.ts';

const keyPrefix = 'lok';
/** How an API key starts; any other bearer credential is taken for an OAuth access token. */
export const apiKeyPrefix = `${keyPrefix}_`;
const secretLength = 40;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyPattern = /^lok_[0-9A-Za-z]{32,}$/;
/** lastUsedAt is a hint, not an audit log: each process writes it at most once a minute per key. */
const lastUsedResolutionMs = 60_000;
const lastUseWritten = new Map<string, number>();

function noteUse(keyHash: string, at: Date) {
  if (at.getTime() - (lastUseWritten.get(keyHash) ?? 0) <= lastUsedResolutionMs) return;
  lastUseWritten.set(keyHash, at.getTime());
  void ApiKeyUsage.updateOne({ _id: keyHash }, { $set: { lastUsedAt: at } }, { upsert: true }).catch(() => undefined);
}

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

function generateKey(): string {
  let secret = '';
  for (let i = 0; i < secretLength; i++) secret += base62[randomInt(base62.length)];
  return `${keyPrefix}_${secret}`;
}

export function parseScopes(list: string): Permission[] {
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(permissions as readonly string[]).includes(s));
  if (unknown.length || !scopes.length) {
    throw new AppError(
      'validation_failed',
      `scopes: unknown permission ${unknown.join(', ') || '(none given)'}; use ${permissions.join(', ')}`,
      { field: 'scopes' },
    );
  }
  return scopes as Permission[];
}

export interface NewApiKey {
  workspaceId: string;
  /** Who holds the key: the caller over HTTP, the owner from the CLI. */
  userId: string;
  name: string;
  scopes: Permission[];
  /** Binds the key to one brand; null acts on the workspace's default brand. */
  brandId?: string | null;
  expiresAt?: Date | null;
}

export async function createApiKey(
  input: NewApiKey,
): Promise<{ id: string; apiKey: string; scopes: Permission[]; brandId: string | null }> {
  const apiKey = generateKey();
  const doc = await ApiKey.create({
    ...input,
    _id: hashKey(apiKey),
    brandId: input.brandId ?? null,
    expiresAt: input.expiresAt ?? null,
    last4: apiKey.slice(-4),
  });
  return { id: doc.keyId, apiKey, scopes: doc.scopes, brandId: doc.brandId ?? null };
}

/** Revokes a key; `workspaceId` limits it to that workspace's keys (404 naming `id` otherwise). */
export async function revokeApiKey(id: string, workspaceId?: string): Promise<{ id: string; status: 'revoked' }> {
  const result = await ApiKey.updateOne({ keyId: id, ...(workspaceId && { workspaceId }) }, { $set: { status: 'revoked' } });
  if (result.matchedCount === 0) throw notFound('API key', workspaceId && 'id');
  return { id, status: 'revoked' };
}

/** Revokes every active key a user holds in the workspace (a member removed); answers how many. */
export async function revokeUserApiKeys(workspaceId: string, userId: string): Promise<number> {
  const result = await ApiKey.updateMany({ workspaceId, userId, status: 'active' }, { $set: { status: 'revoked' } });
  return result.modifiedCount;
}

/** Removes a key outright: only for one just made and refused (over the plan's limit) before its secret was shown. */
export async function discardApiKey(id: string): Promise<void> {
  await ApiKey.deleteOne({ keyId: id });
}

/** Keys that are accepted now: active and not expired. */
const usableNow = (workspaceId: string) => ({
  workspaceId,
  status: 'active' as const,
  $or: [{ expiresAt: null }, { expiresAt: { $gt: now() } }],
});

export const countUsableApiKeys = (workspaceId: string) => ApiKey.countDocuments(usableNow(workspaceId));

export interface ApiKeyView extends Omit<ApiKeyDoc, '_id'> {
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** Keys by public id (all of the workspace's when `ids` is absent), newest first, with when each was last used; never the hash. */
export async function findApiKeys(workspaceId: string, ids?: string[]): Promise<ApiKeyView[]> {
  const docs = await ApiKey.find({ workspaceId, ...(ids && { keyId: { $in: ids } }) })
    .sort({ createdAt: -1, keyId: -1 })
    .lean<(ApiKeyDoc & { createdAt: Date })[]>();
  const uses = await ApiKeyUsage.find({ _id: { $in: docs.map((doc) => doc._id) } }).lean<{ _id: string; lastUsedAt: Date }[]>();
  const lastUse = new Map(uses.map((use) => [use._id, use.lastUsedAt]));
  return docs.map(({ _id, ...doc }) => ({ ...doc, lastUsedAt: lastUse.get(_id) ?? null }));
}

/** The principal of an API key, or 401 for a key that is malformed, unknown, revoked or expired. */
export async function principalForApiKey(token: string): Promise<Principal> {
  if (!keyPattern.test(token)) throw new AppError('unauthorized', 'Malformed API key');
  const key = await ApiKey.findById(hashKey(token)).lean<ApiKeyDoc>();
  if (!key) throw new AppError('unauthorized', 'Unknown API key');
  if (key.status !== 'active') throw new AppError('unauthorized', 'API key has been revoked');
  const at = now();
  if (key.expiresAt && key.expiresAt.getTime() <= at.getTime()) throw new AppError('unauthorized', 'API key has expired');
  noteUse(key._id, at);
  return {
    kind: 'api_key',
    id: key.keyId,
    workspaceId: key.workspaceId,
    userId: key.userId,
    brandId: key.brandId ?? null,
    scopes: key.scopes,
    status: key.status,
  };
}
