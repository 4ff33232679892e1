import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

export const enrollmentStatuses = ['active', 'finished', 'stopped'] as const;
export const stopReasons = [
  'replied',
  'bounced',
  'unsubscribed',
  'suppressed',
  'archived',
  'failed',
  'lead_gone',
  'invalid_email',
  'removed',
] as const;

/** A lead in a campaign: which step it is at and when that step is due. One per (campaign, lead), by its id. */
const enrollmentSchema = new Schema(
  {
    _id: { type: String, required: true }, // `<campaignId>:<leadId>`
    workspaceId: { type: String, required: true },
    campaignId: { type: String, required: true },
    leadId: { type: String, required: true },
    status: { type: String, enum: enrollmentStatuses, default: 'active', required: true },
    stopReason: { type: String, enum: stopReasons, default: null },
    /** The step to send next, and when it is due (the schedule window applies on top). */
    nextStep: { type: Number, default: 0, required: true },
    nextDueAt: { type: Date, required: true },
    /**
     * The Message-ID of the message that opened the lead's current thread
     * (the latest step that went out as a new thread): reply steps go under
     * it. Null when the step that was to open it did not go out (skipped, or
     * its outcome unknown), so the next reply step opens a thread itself.
     */
    firstMessageId: { type: String, default: null },
    /** The campaign the lead was moved from (POST …/move): a move cut short before its removal there is finished on retry. */
    movedFrom: { type: String, default: null },
    /** Steps not sent, and why (a merge variable the lead lacks). */
    skipped: { type: [{ _id: false, step: { type: Number, required: true }, reason: { type: String, required: true } }], default: [] },
  },
  { timestamps: true, versionKey: false },
);
// The due steps in the order they are sent (nextDueAt, then _id): read from the index and stopped at the limit.
enrollmentSchema.index({ campaignId: 1, status: 1, nextDueAt: 1, _id: 1 });
enrollmentSchema.index({ workspaceId: 1, leadId: 1 });

export type EnrollmentDoc = InferRawDocTypeFromSchema<typeof enrollmentSchema>;
export const Enrollment = mongoose.model('Enrollment', enrollmentSchema, 'outreach_enrollments');

/** How an enrollment ended: finished, or stopped and why. */
export type EnrollmentOutcome = 'finished' | (typeof stopReasons)[number];

/**
 * A campaign's running counts, moved as things happen (by primary key), so
 * its progress is one read rather than a count over every enrollment and
 * message.
 */
const campaignCountersSchema = new Schema(
  {
    _id: { type: String, required: true }, // the campaign id
    enrolled: { type: Number, default: 0 },
    finished: { type: Number, default: 0 },
    replied: { type: Number, default: 0 },
    bounced: { type: Number, default: 0 },
    unsubscribed: { type: Number, default: 0 },
    suppressed: { type: Number, default: 0 },
    archived: { type: Number, default: 0 },
    failed: { type: Number, default: 0 },
    lead_gone: { type: Number, default: 0 },
    invalid_email: { type: Number, default: 0 },
    /** Stopped by a remove or a move to another campaign. */
    removed: { type: Number, default: 0 },
    interrupted: { type: Number, default: 0 },
    /** Sent per step and variant: `{ "<step>": { "<variant>": n } }`. */
    sent: { type: Schema.Types.Mixed, default: {} },
    /**
     * What came of the messages of each step and variant, counted for the step whose message it answers:
     * `{ "<step>": { "<variant>": { opened, clicked, replied, bounced, unsubscribed, refused } } }` (`refused`: at
     * RCPT, a hard bounce known at once; not in `sent`, which counts messages the server accepted).
     */
    answered: { type: Schema.Types.Mixed, default: undefined },
    /** The last batch of each sending process counted here (incrementCounterOnce). */
    applied: { type: Schema.Types.Mixed, default: undefined },
  },
  { versionKey: false, minimize: false },
);
export type CampaignCountersDoc = Omit<InferRawDocTypeFromSchema<typeof campaignCountersSchema>, 'sent' | 'answered'> & {
  sent: Record<string, Record<string, number>>;
  answered?: Record<string, Record<string, Partial<Record<MessageEffect, number>>>>;
};

/** What a campaign's message can come to after it went out, counted per step and variant. */
export const messageEffects = ['opened', 'clicked', 'replied', 'bounced', 'unsubscribed', 'refused'] as const;
export type MessageEffect = (typeof messageEffects)[number];
export const CampaignCounters = mongoose.model('CampaignCounters', campaignCountersSchema, 'outreach_campaign_counters');
