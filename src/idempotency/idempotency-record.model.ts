import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * One Idempotency-Key of one credential: inserted when its first request
 * starts (the unique `_id` decides which of two racing requests runs), then
 * given that request's answer. Pruned after 24 hours.
 */
const idempotencyRecordSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The operation and its input, hashed: the same key with anything else is refused. */
    requestHash: { type: String, required: true },
    state: { type: String, enum: ['in_progress', 'done'], default: 'in_progress' },
    /** The answer, as JSON text: the output, or the error (code, message, extra fields). */
    outputJson: { type: String, default: null },
    errorJson: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export type IdempotencyRecordDoc = InferRawDocTypeFromSchema<typeof idempotencyRecordSchema>;
export const IdempotencyRecord = mongoose.model('IdempotencyRecord', idempotencyRecordSchema, 'idempotency_records');
