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
    lastUsedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);

export type ApiKeyDoc = InferRawDocTypeFromSchema<typeof apiKeySchema>;
export const ApiKey = mongoose.model('ApiKey', apiKeySchema, 'api_keys');
