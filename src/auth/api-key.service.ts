import { createHash, randomInt } from 'node:crypto';
import { AppError, notFound } from '../errors/app-error.ts';
import { permissions, type Permission } from '../../schema/account.ts';
import { ApiKey, type ApiKeyDoc } from './api-key.model.ts';

export const keyPrefix = 'lok';
const secretLength = 40;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyPattern = /^lok_[0-9A-Za-z]{32,}$/;
/** lastUsedAt is a hint, not an audit log: write it at most once a minute per key. */
const lastUsedResolutionMs = 60_000;

export interface Principal {
  keyId: string;
  workspaceId: string;
  userId: string;
  scopes: Permission[];
  status: 'active' | 'revoked';
}

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

function generateKey(): string {
  let secret = '';
  for (let i = 0; i < secretLength; i++) secret += base62[randomInt(base62.length)];
  return `${keyPrefix}_${secret}`;
}

export function parseScopes(list: string): Permission[] {
  const scopes = list.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !(permissions as readonly string[]).includes(s));
  if (unknown.length || !scopes.length) {
    throw new AppError('validation_failed', `scopes: unknown permission ${unknown.join(', ') || '(none given)'}; use ${permissions.join(', ')}`, { field: 'scopes' });
  }
  return scopes as Permission[];
}

export async function createApiKey(input: {
  workspaceId: string;
  userId: string;
  name: string;
  scopes: Permission[];
  expiresAt?: Date | null;
}): Promise<{ id: string; apiKey: string; scopes: Permission[] }> {
  const apiKey = generateKey();
  const doc = await ApiKey.create({ ...input, _id: hashKey(apiKey), expiresAt: input.expiresAt ?? null });
  return { id: doc.keyId, apiKey, scopes: doc.scopes };
}

export async function revokeApiKey(id: string): Promise<{ id: string; status: 'revoked' }> {
  const result = await ApiKey.updateOne({ keyId: id }, { $set: { status: 'revoked' } });
  if (result.matchedCount === 0) throw notFound('API key');
  return { id, status: 'revoked' };
}

/** Resolves a bearer header to its key, or throws 401 for anything not usable. */
export async function authenticate(authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new AppError('unauthorized', 'Missing bearer credential: send Authorization: Bearer <API key>');
  const token = match[1]!;
  if (!keyPattern.test(token)) throw new AppError('unauthorized', 'Malformed API key');
  const key = await ApiKey.findById(hashKey(token)).lean<ApiKeyDoc>();
  if (!key) throw new AppError('unauthorized', 'Unknown API key');
  if (key.status !== 'active') throw new AppError('unauthorized', 'API key has been revoked');
  const now = Date.now();
  if (key.expiresAt && key.expiresAt.getTime() <= now) throw new AppError('unauthorized', 'API key has expired');
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > lastUsedResolutionMs) {
    void ApiKey.updateOne({ _id: key._id }, { $set: { lastUsedAt: new Date(now) } }).catch(() => undefined);
  }
  return { keyId: key.keyId, workspaceId: key.workspaceId, userId: key.userId, scopes: key.scopes, status: key.status };
}

export function assertPermission(principal: Principal, needed: Permission) {
  if (principal.scopes.includes('*') || principal.scopes.includes(needed)) return;
  throw new AppError('missing_permission', `This API key lacks the "${needed}" permission`, { permission: needed });
}
