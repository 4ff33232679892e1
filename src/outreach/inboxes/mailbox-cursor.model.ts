import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * Where reading an inbox's mailbox stands (one small document per inbox,
 * written by primary key): the mailbox's UIDVALIDITY and the last UID
 * taken, moved only after that message is stored; and the last check, its
 * error, and when to try again after failures.
 */
const mailboxCursorSchema = new Schema(
  {
    _id: { type: String, required: true }, // the inbox id
    mailbox: { type: String, required: true },
    uidValidity: { type: String, default: null },
    lastUid: { type: Number, default: 0 },
    checkedAt: { type: Date, default: null },
    error: { type: String, default: null },
    failures: { type: Number, default: 0 },
    nextCheckAt: { type: Date, default: null },
  },
  { versionKey: false },
);

export type MailboxCursorDoc = InferRawDocTypeFromSchema<typeof mailboxCursorSchema>;
export const MailboxCursor = mongoose.model('OutreachMailboxCursor', mailboxCursorSchema, 'outreach_mailbox_cursors');
