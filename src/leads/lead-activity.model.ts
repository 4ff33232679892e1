import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { leadActivityTypes } from '../../schema/lead-activity.ts';

/**
 * One fact of a lead's story, written by the flow that causes it when it happens (never rebuilt from other
 * collections). Its id is derived from the fact where it can happen only once (`<message record>:sent`), so a flow
 * that runs again after a crash stores it once; deleted with the lead.
 */
const leadActivitySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    leadId: { type: String, required: true },
    type: { type: String, enum: leadActivityTypes, required: true },
    at: { type: Date, required: true },
    campaignId: { type: String, default: null },
    messageId: { type: String, default: null },
    step: { type: Number, default: null },
    variant: { type: Number, default: null },
    data: { type: Schema.Types.Mixed, default: undefined },
  },
  { versionKey: false },
);
// A lead's page, newest first, read from the index and stopped at the limit.
leadActivitySchema.index({ leadId: 1, at: -1, _id: -1 });

export type LeadActivityDoc = InferRawDocTypeFromSchema<typeof leadActivitySchema>;
export const LeadActivity = mongoose.model('LeadActivity', leadActivitySchema, 'lead_activity');
