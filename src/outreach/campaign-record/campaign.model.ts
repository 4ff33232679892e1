import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

export const campaignStatuses = ['draft', 'active', 'paused', 'completed', 'archived'] as const;

/** When a campaign may send: weekdays and hours in a time zone. */
const scheduleSchema = new Schema(
  {
    timezone: { type: String, required: true },
    days: { type: [Number], required: true },
    startHour: { type: Number, required: true },
    endHour: { type: Number, required: true },
  },
  { _id: false },
);

/** A campaign: a sequence sent from a set of inboxes to the leads enrolled in it, on a schedule. */
const campaignSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    brandId: { type: String, required: true },
    name: { type: String, required: true },
    status: { type: String, enum: campaignStatuses, default: 'draft', required: true },
    sequenceId: { type: String, required: true },
    inboxIds: { type: [String], required: true },
    replyTo: { type: String, default: null },
    dailyLimit: { type: Number, required: true },
    schedule: { type: scheduleSchema, required: true },
    priority: { type: Number, default: 0, required: true },
    trackOpens: { type: Boolean, default: false, required: true },
    trackClicks: { type: Boolean, default: false, required: true },
    startedAt: { type: Date, default: null },
    /**
     * Set when the campaign completes, to that time, and removed once its `outreach.campaign.completed` event is
     * stored (whose id is derived from it): a process that dies between the two leaves the event to whoever finds this.
     */
    completionEventPendingAt: { type: Date },
  },
  { timestamps: true, versionKey: false },
);

campaignSchema.index({ completionEventPendingAt: 1 });

export type CampaignDoc = InferRawDocTypeFromSchema<typeof campaignSchema>;
export const Campaign = mongoose.model('Campaign', campaignSchema, 'outreach_campaigns');
