import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** The audit record of one privacy request: who asked, when, and what it covered, counted; never the address. */
const privacyRequestSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    kind: { type: String, enum: ['export', 'erase'], required: true },
    userId: { type: String, required: true },
    keyId: { type: String, required: true },
    counts: { type: Schema.Types.Mixed, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false, minimize: false },
);
privacyRequestSchema.index({ workspaceId: 1, createdAt: -1 });

/** `counts` holds the records by kind (Mixed in the schema). */
export type PrivacyRequestDoc = Omit<InferRawDocTypeFromSchema<typeof privacyRequestSchema>, 'counts'> & { counts: Record<string, number> };
export const PrivacyRequest = mongoose.model('PrivacyRequest', privacyRequestSchema, 'privacy_requests');
