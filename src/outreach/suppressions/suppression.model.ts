import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { suppressionReasons } from '../../../schema/outreach/suppressions.ts';

/**
 * One do-not-contact entry: an address, or a whole domain (`@acme.test`).
 * `_id` is derived from the workspace and the entry (suppressionId), so the
 * check before each send is two primary-key reads, answered from an index
 * on either store, and the same entry can never be
 * stored twice.
 */
const suppressionSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    /** The entry as compared: lower-cased address or `@domain`; `q` searches it. */
    entry: { type: String, required: true },
    email: { type: String, default: null },
    domain: { type: String, required: true },
    reason: { type: String, enum: suppressionReasons, required: true },
    source: { type: String, required: true },
    /** From the service's clock, not mongoose timestamps, so tests can order entries by moving time. */
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The list: a workspace's entries, newest first.
suppressionSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });

export type SuppressionDoc = InferRawDocTypeFromSchema<typeof suppressionSchema>;
export const Suppression = mongoose.model('Suppression', suppressionSchema, 'outreach_suppressions');
