import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** A sending slot taken (see send-slots.ts): its id is unique, which is what makes a cap exact. */
const sendSlotSchema = new Schema(
  {
    _id: { type: String, required: true }, // `<scope>:<period>:<n>`
    scope: { type: String, required: true }, // `inbox:<id>` or `campaign:<id>`
    period: { type: String, required: true }, // hour index, or a day in the campaign's time zone
    takenAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export type SendSlotDoc = InferRawDocTypeFromSchema<typeof sendSlotSchema>;
export const SendSlot = mongoose.model('SendSlot', sendSlotSchema, 'outreach_send_slots');
