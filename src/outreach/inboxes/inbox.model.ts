import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** A mail server login; the password only ever stored sealed (src/secrets/secret-box.ts). */
const serverFields = {
  host: { type: String, required: true },
  port: { type: Number, required: true },
  secure: { type: Boolean, required: true },
  user: { type: String, required: true },
  passwordSealed: { type: String, required: true },
} as const;

const imapSchema = new Schema({ ...serverFields, mailbox: { type: String, required: true } }, { _id: false });

/** A sending inbox of a brand: its SMTP login, optionally its IMAP login (replies), its cap and pause state. */
const inboxSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    brandId: { type: String, required: true },
    name: { type: String, required: true },
    from: { type: String, required: true },
    fromName: { type: String, default: null },
    smtp: { type: new Schema(serverFields, { _id: false }), required: true },
    imap: { type: imapSchema, default: null },
    dailyLimit: { type: Number, required: true },
    warmupEnabled: { type: Boolean, required: true },
    /** When warmup was last turned on: the ramp counts days from it. */
    warmupStartedAt: { type: Date, default: null },
    sendingPausedAt: { type: Date, default: null },
    sendingPausedReason: { type: String, default: null },
    /**
     * Set with a bounce guard's pause to its time, and removed once its `outreach.inbox.paused` event is stored
     * (whose id is derived from it): a process that dies between the two leaves the event to whoever finds this.
     */
    pauseEventPendingAt: { type: Date },
  },
  { timestamps: true, versionKey: false },
);

inboxSchema.index({ pauseEventPendingAt: 1 });

export type InboxDoc = InferRawDocTypeFromSchema<typeof inboxSchema>;
export const Inbox = mongoose.model('Inbox', inboxSchema, 'outreach_inboxes');
