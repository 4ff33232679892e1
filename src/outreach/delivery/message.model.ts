import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

export const messageStatuses = ['claimed', 'sent', 'deferred', 'failed', 'interrupted'] as const;

/**
 * One outgoing message. A campaign step's record has the id
 * `<enrollment id>:<step>`, unique, and is inserted (claimed) before the
 * SMTP call: that is what makes a step impossible to send twice, across
 * crashes and processes. Its outcome is written as soon as the server
 * answers; a claim that never got one (its worker died with the message in
 * flight) becomes `interrupted`: its outcome is unknown, and it is never
 * sent again. Replies, bounces and opens attach to it by its RFC 5322
 * `messageId`.
 */
const messageSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    brandId: { type: String, required: true },
    campaignId: { type: String, default: null },
    enrollmentId: { type: String, default: null },
    leadId: { type: String, default: null },
    inboxId: { type: String, required: true },
    step: { type: Number, default: null },
    variant: { type: Number, default: null },
    to: { type: String, required: true },
    subject: { type: String, required: true },
    /** The Message-ID header, with its angle brackets. */
    messageId: { type: String, required: true },
    inReplyTo: { type: String, default: null },
    /** An answer to a reply (POST /api/outreach/replies/{id}/reply): that reply's id, and the thread's Message-IDs it went with. */
    answersReplyId: { type: String, default: undefined },
    references: { type: [String], default: undefined },
    /** The text part as sent, for a direct send (a campaign step's is its sequence's, rendered for the lead). */
    bodyText: { type: String, default: undefined },
    status: { type: String, enum: messageStatuses, default: 'claimed', required: true },
    /** SMTP attempts made (a temporary failure is tried again later). */
    attempts: { type: Number, default: 1, required: true },
    retryAt: { type: Date, default: null },
    error: { type: String, default: null },
    smtpResponse: { type: String, default: null },
    sentAt: { type: Date, default: null },
    openedAt: { type: Date, default: null },
    /** The send hold whose cap slots it holds (send-holds.ts); null once its slot was given back (it did not go out). */
    hold: { type: String, default: null },
    /** The statistics events its outcome counts in, written with the outcome: what a dead worker's recovery counts once. */
    counted: { type: [String], default: undefined },
  },
  { timestamps: true, versionKey: false },
);
messageSchema.index({ messageId: 1 });
// The answers sent to replies, for a conversation (sparse: few messages are answers).
messageSchema.index({ answersReplyId: 1 }, { sparse: true });
messageSchema.index({ workspaceId: 1, createdAt: -1 });
messageSchema.index({ workspaceId: 1, to: 1, sentAt: -1 });

export type MessageDoc = InferRawDocTypeFromSchema<typeof messageSchema>;
export const Message = mongoose.model('OutreachMessage', messageSchema, 'outreach_messages');
