import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { Permission } from '../../schema/account.ts';

const apiKeySchema = new Schema(
  {
    /** SHA-256 of the whole key (the key itself is never stored): each request looks its key up by primary key. */
    _id: { type: String, required: true },
    /** The key's public id, shown in /api/user and used to revoke it. */
    keyId: { type: String, default: () => randomUUID(), unique: true },
    workspaceId: { type: String, required: true, index: true },
    userId: { type: String, required: true },
    name: { type: String, required: true },
    scopes: { type: [String], required: true },
    status: { type: String, enum: ['active', 'revoked'], default: 'active' },
    expiresAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);

export interface ApiKeyDoc {
  _id: string;
  keyId: string;
  workspaceId: string;
  userId: string;
  name: string;
  scopes: Permission[];
  status: 'active' | 'revoked';
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export const ApiKey = mongoose.model<ApiKeyDoc>('ApiKey', apiKeySchema, 'api_keys');
