import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

export const replyKinds = ['reply', 'bounce', 'auto_reply'] as const;
export const sentiments = ['positive', 'neutral', 'negative', 'objection', 'unsubscribe', 'ooo', 'referral'] as const;
export type Sentiment = (typeof sentiments)[number];

/**
 * A message that came back to an inbox. Its id is derived from the inbox
 * and the message (its Message-ID, else its place in the mailbox), so a
 * message read twice (a crash before the cursor moved, a mailbox whose
 * UIDVALIDITY changed) is stored once. `effectsAppliedAt` is set once what
 * it means (an enrollment stopped, an address suppressed) was applied:
 * a message stored but not yet applied is applied when it is read again.
 */
const replySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    brandId: { type: String, required: true },
    inboxId: { type: String, required: true },
    campaignId: { type: String, default: null },
    leadId: { type: String, default: null },
    /** The message of ours it answers or returns (outreach_messages id). */
    messageRecordId: { type: String, default: null },
    kind: { type: String, enum: replyKinds, required: true },
    fromEmail: { type: String, default: '' },
    fromName: { type: String, default: '' },
    subject: { type: String, default: '' },
    bodyText: { type: String, default: '' },
    receivedAt: { type: Date, required: true },
    /** The Message-ID header, when it has one. */
    messageId: { type: String, default: null },
    bounceType: { type: String, enum: ['hard', 'soft', null], default: null },
    bounceCode: { type: String, default: null },
    /** The address a bounce or complaint is about. */
    bouncedEmail: { type: String, default: null },
    /** A complaint (RFC 5965 feedback report). */
    complaint: { type: Boolean, default: false },
    /** An out-of-office reply's return date: the lead's next step waits until then. */
    oooUntil: { type: Date, default: null },
    effectsAppliedAt: { type: Date, default: null },
    /** Sentiment analysis (replies and automatic replies): what it found, and which analyzer (`model:<name>` or `heuristic`). */
    sentiment: { type: String, enum: [...sentiments, null], default: null },
    sentimentScore: { type: Number, default: null },
    intent: { type: String, default: null },
    summary: { type: String, default: null },
    analyzedAt: { type: Date, default: null },
    analyzedBy: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);
replySchema.index({ workspaceId: 1, receivedAt: -1 });
// What came back from a lead to a campaign: a reply's conversation.
replySchema.index({ campaignId: 1, leadId: 1 });

export type ReplyDoc = InferRawDocTypeFromSchema<typeof replySchema>;
export const Reply = mongoose.model('OutreachReply', replySchema, 'outreach_replies');

/**
 * Replies waiting for sentiment analysis: a marker per reply, inserted
 * when the reply is stored and removed once it is analysed, so the
 * analyzer reads this small collection, never the replies. A model that is
 * down leaves the marker, tried again at `nextAttemptAt`.
 */
const analysisPendingSchema = new Schema(
  {
    _id: { type: String, required: true }, // the reply id
    attempts: { type: Number, default: 0 },
    nextAttemptAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export type AnalysisPendingDoc = InferRawDocTypeFromSchema<typeof analysisPendingSchema>;
export const AnalysisPending = mongoose.model('OutreachReplyAnalysisPending', analysisPendingSchema, 'outreach_reply_analysis_pending');

/**
 * Soft bounces per address and UTC day (`<workspace>:<address>:<day>`), for
 * the rule that repeated soft bounces suppress an address; each bounce
 * counted once through `SoftBounceSeen` (its reply id, a unique insert).
 */
const softBounceDaySchema = new Schema(
  { _id: { type: String, required: true }, count: { type: Number, default: 0 }, expiresAt: { type: Date, required: true } },
  { versionKey: false },
);
export const SoftBounceDay = mongoose.model('OutreachSoftBounceDay', softBounceDaySchema, 'outreach_soft_bounce_days');
const softBounceSeenSchema = new Schema(
  { _id: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { versionKey: false },
);
export const SoftBounceSeen = mongoose.model('OutreachSoftBounceSeen', softBounceSeenSchema, 'outreach_soft_bounces_seen');

/** Effects of a stored message done once whoever applies them again (`<reply id>:replied`, `<reply id>:bounced`): unique inserts. */
const replyEffectSchema = new Schema(
  { _id: { type: String, required: true } },
  { versionKey: false, timestamps: { createdAt: true, updatedAt: false } },
);
export const ReplyEffect = mongoose.model('OutreachReplyEffect', replyEffectSchema, 'outreach_reply_effects');
