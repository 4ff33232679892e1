import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { permissions } from '../../schema/account.ts';

const apiKeySchema = new Schema(
  {
    /** SHA-256 of the whole key (the key itself is never stored): each request looks its key up by primary key. */
    _id: { type: String, required: true },
    /** The key's public id, shown in /api/user and used to revoke it. */
    keyId: { type: String, default: () => randomUUID(), unique: true },
    workspaceId: { type: String, required: true, index: true },
    userId: { type: String, required: true },
    /** The brand the key acts on; null: the workspace's default brand. */
    brandId: { type: String, default: null },
    name: { type: String, required: true },
    scopes: { type: [String], enum: permissions, required: true },
    status: { type: String, enum: ['active', 'revoked'], default: 'active' },
    expiresAt: { type: Date, default: null },
    /** The key's last 4 characters, to tell keys apart in lists (null for keys made before it was kept). */
    last4: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);

/**
 * When a key was last used, apart from the key: a store may apply an update
 * as read, change, write of the whole document, so a use's write on the key
 * itself could put back a revocation made meanwhile.
 */
const apiKeyUsageSchema = new Schema(
  {
    /** The key's `_id` (the hash). */
    _id: { type: String, required: true },
    lastUsedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export type ApiKeyDoc = InferRawDocTypeFromSchema<typeof apiKeySchema>;
export const ApiKey = mongoose.model('ApiKey', apiKeySchema, 'api_keys');
export const ApiKeyUsage = mongoose.model('ApiKeyUsage', apiKeyUsageSchema, 'api_key_usage');
