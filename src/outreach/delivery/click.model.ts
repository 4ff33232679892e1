import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * One click of a tracked link in a message: which message, which address,
 * when. The first click of a link in a message has the id
 * `<record id>:<link key>` (clickIds.first), unique, so it is counted and
 * announced once however often, and wherever, the link is followed; each
 * later click is stored beside it under an id of its own.
 */
const clickSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    /** The message record (outreach_messages) whose link it was. */
    messageRecordId: { type: String, required: true },
    campaignId: { type: String, default: null },
    leadId: { type: String, default: null },
    url: { type: String, required: true },
    /** The link's first click in its message. */
    first: { type: Boolean, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);

export type ClickDoc = InferRawDocTypeFromSchema<typeof clickSchema>;
export const Click = mongoose.model('OutreachClick', clickSchema, 'outreach_clicks');
