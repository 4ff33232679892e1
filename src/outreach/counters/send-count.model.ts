import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** Sends taken in one period of one cap (see send-slots.ts), moved only by conditional increments. */
const sendCountSchema = new Schema(
  {
    _id: { type: String, required: true }, // `<scope>:<period>`
    scope: { type: String, required: true }, // `inbox:<id>` or `campaign:<id>`
    period: { type: String, required: true }, // hour index, or a day in the campaign's time zone
    taken: { type: Number, required: true, default: 0 },
    /** Of `taken`, the slots each open send hold still has (`{ <hold id>: n }`): what a dead worker's recovery settles. */
    holds: { type: Schema.Types.Mixed, default: undefined },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
sendCountSchema.index({ expiresAt: 1 });

export type SendCountDoc = InferRawDocTypeFromSchema<typeof sendCountSchema>;
export const SendCount = mongoose.model('SendCount', sendCountSchema, 'outreach_send_counts');
