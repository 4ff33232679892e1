import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** One document per credential: the times (ms) of its last `limit` accepted requests. */
const rateLimitWindowSchema = new Schema(
  {
    _id: { type: String, required: true },
    hits: { type: [Number], required: true, default: [] },
    lastHit: { type: Number, required: true, index: true },
  },
  { versionKey: false },
);

export type RateLimitWindowDoc = InferRawDocTypeFromSchema<typeof rateLimitWindowSchema>;
export const RateLimitWindow = mongoose.model('RateLimitWindow', rateLimitWindowSchema, 'rate_limit_windows');
