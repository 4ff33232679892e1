import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { Permission } from '../../schema/account.ts';

const apiKeySchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    userId: { type: String, required: true },
    name: { type: String, required: true },
    /** SHA-256 of the whole key; the key itself is never stored. */
    hash: { type: String, required: true, unique: true },
    scopes: { type: [String], required: true },
    status: { type: String, enum: ['active', 'revoked'], default: 'active' },
    expiresAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);

export interface ApiKeyDoc {
  _id: string;
  workspaceId: string;
  userId: string;
  name: string;
  hash: string;
  scopes: Permission[];
  status: 'active' | 'revoked';
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export const ApiKey = mongoose.model<ApiKeyDoc>('ApiKey', apiKeySchema, 'api_keys');
