import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * One document per credential, of a fixed size whatever the limit: its current window (opened by the first
 * request after the last one ended) and the requests counted in it, refused ones included.
 */
const rateLimitWindowSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** When the window opened (ms); it lasts one minute from then. */
    start: { type: Number, required: true },
    count: { type: Number, required: true },
  },
  { versionKey: false },
);

export type RateLimitWindowDoc = InferRawDocTypeFromSchema<typeof rateLimitWindowSchema>;
export const RateLimitWindow = mongoose.model('RateLimitWindow', rateLimitWindowSchema, 'rate_limit_windows');
