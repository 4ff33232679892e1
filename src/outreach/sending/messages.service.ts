import { randomBytes } from 'node:crypto';
import { now } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { Message, MessageClaim, type MessageDoc } from './message.model.ts';

/** A campaign step's record id: one per (enrollment, step), so the step can be claimed once. */
export const stepRecordId = (enrollmentId: string, step: number) => `${enrollmentId}:${step}`;

/**
 * A Message-ID in the sender's domain whose left part names the record
 * (base64url of its id, then a random part: a retry goes out with a new
 * one), so a reply's In-Reply-To or a bounce's returned headers lead back
 * to the record by primary key.
 */
export const newMessageId = (recordId: string, from: string) =>
  `<${Buffer.from(recordId).toString('base64url')}.${randomBytes(6).toString('base64url')}@${from.split('@')[1] ?? 'localhost'}>`;

/** The record a Message-ID of ours names (see newMessageId), or null for any other Message-ID. */
export function recordIdOf(messageId: string): string | null {
  const match = /^<?([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]{8}@/.exec(messageId.trim());
  return match ? Buffer.from(match[1]!, 'base64url').toString() : null;
}

export type NewMessage = Pick<MessageDoc, '_id' | 'workspaceId' | 'brandId' | 'inboxId' | 'to' | 'subject' | 'messageId'> &
  Partial<Pick<MessageDoc, 'campaignId' | 'enrollmentId' | 'leadId' | 'step' | 'variant' | 'inReplyTo'>>;

/** Claims a message before it is sent: its record, or null when it was claimed already (by anyone, ever). */
export async function claimMessage(message: NewMessage): Promise<MessageDoc | null> {
  try {
    return (await Message.create({ ...message, status: 'claimed', attempts: 1 })).toObject<MessageDoc>();
  } catch (error) {
    if (isDuplicateKey(error)) return null;
    throw error;
  }
}

/** True for the one caller that inserted claim `id` (see MessageClaim). */
async function claimOnce(id: string): Promise<boolean> {
  try {
    await MessageClaim.create({ _id: id });
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * Claims attempt `attempt` of a deferred message, from `inbox` (the one with
 * a free slot now; nothing went out before, so its Message-ID is made anew in
 * that inbox's domain). False when someone else claimed that attempt.
 */
export async function claimRetry(recordId: string, attempt: number, inbox: { id: string; from: string }): Promise<boolean> {
  if (!(await claimOnce(`${recordId}:attempt:${attempt}`))) return false;
  await Message.updateOne({ _id: recordId }, { $set: { status: 'claimed', attempts: attempt, retryAt: null, inboxId: inbox.id, messageId: newMessageId(recordId, inbox.from) } });
  return true;
}

export const findMessage = (recordId: string) => Message.findById(recordId).lean<MessageDoc>();

/**
 * The latest messages sent to `address` since `since`, newest first: for a
 * reply that names none of our Message-IDs (a filter, not a key: on the
 * embedded store it reads the whole collection, so it is the last resort).
 */
export const sentMessagesTo = (workspaceId: string, address: string, since: Date) =>
  Message.find({ workspaceId, to: { $in: [...new Set([address, address.toLowerCase()])] }, status: 'sent', sentAt: { $gte: since } })
    .sort({ sentAt: -1 })
    .limit(20)
    .lean<MessageDoc[]>();

export async function markSent(recordId: string, smtpResponse: string): Promise<Date> {
  const sentAt = now();
  await Message.updateOne({ _id: recordId }, { $set: { status: 'sent', sentAt, smtpResponse, error: null } });
  return sentAt;
}

export async function markDeferred(recordId: string, retryAt: Date, error: string): Promise<void> {
  await Message.updateOne({ _id: recordId }, { $set: { status: 'deferred', retryAt, error } });
}

export async function markFailed(recordId: string, error: string): Promise<void> {
  await Message.updateOne({ _id: recordId }, { $set: { status: 'failed', error } });
}

/** A claim whose send never came back (the worker died): not sent again, reported. True for the one caller that marked it. */
export async function markInterrupted(recordId: string): Promise<boolean> {
  if (!(await claimOnce(`${recordId}:interrupted`))) return false;
  await Message.updateOne({ _id: recordId }, { $set: { status: 'interrupted', error: 'the send was interrupted after it was claimed; it is not sent again' } });
  return true;
}

/** The first open of a sent message, or null when it was opened before (or is unknown, or was not sent). */
export async function recordFirstOpen(recordId: string): Promise<MessageDoc | null> {
  const record = await findMessage(recordId);
  if (record?.status !== 'sent' || !(await claimOnce(`${recordId}:opened`))) return null;
  const openedAt = now();
  await Message.updateOne({ _id: recordId }, { $set: { openedAt } });
  return { ...record, openedAt };
}
