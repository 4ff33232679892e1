import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** Who counted a hold's outcomes, as which of its batches, and at what time (settle-counts.ts). */
const effectsSchema = new Schema(
  {
    writer: { type: String, required: true },
    seq: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { _id: false },
);

/**
 * An open send hold (see send-holds.ts): written before its first slot is
 * taken and deleted once it is closed, so the holds of a worker that died
 * are the documents left here.
 */
const sendHoldSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** When it was opened, by the service's clock. */
    at: { type: Date, required: true },
    /** The message records its sends would make: a campaign chunk's planned steps, or a direct send's one. */
    records: { type: [String], default: [] },
    /** Set just before its outcomes are counted; null while they are not. */
    effects: { type: effectsSchema, default: null },
  },
  { versionKey: false },
);

export type SendHoldDoc = InferRawDocTypeFromSchema<typeof sendHoldSchema>;
export const SendHoldRecord = mongoose.model('SendHold', sendHoldSchema, 'outreach_send_holds');
