import { randomBytes } from 'node:crypto';
import { now } from '../../clock.ts';
import { insertNew } from '../../db/insert-new.ts';
import { journaled } from '../../db/journaled.ts';
import { groupedSetEach, setEach } from '../../db/lean-update.ts';
import { Message, type MessageDoc } from './message.model.ts';
import { sameTextAnyCase } from '../../db/exact-text.ts';

/** A campaign step's record id: one per (enrollment, step), so the step can be claimed once. */
export const stepRecordId = (enrollmentId: string, step: number) => `${enrollmentId}:${step}`;

/**
 * A Message-ID in the sender's domain whose left part names the record
 * (base64url of its id, then a random part: a retry goes out with a new
 * one), so a reply's In-Reply-To or a bounce's returned headers lead back
 * to the record by primary key.
 */
export const newMessageId = (recordId: string, from: string) =>
  `<${Buffer.from(recordId).toString('base64url')}.${randomPart()}@${from.split('@')[1] ?? 'localhost'}>`;

/** Random bytes for the Message-IDs' random parts, drawn from a pool filled a few KiB at once (a call per message costs more than its 6 bytes). */
let randomPool = Buffer.alloc(0);
let randomUsed = 0;
function randomPart(): string {
  if (randomUsed + 6 > randomPool.length) [randomPool, randomUsed] = [randomBytes(6 * 512), 0];
  return randomPool.toString('base64url', randomUsed, (randomUsed += 6));
}

/** The record a Message-ID of ours names (see newMessageId), or null for any other Message-ID. */
export function recordIdOf(messageId: string): string | null {
  const match = /^<?([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]{8}@/.exec(messageId.trim());
  return match ? Buffer.from(match[1]!, 'base64url').toString() : null;
}

export type NewMessage = Pick<MessageDoc, '_id' | 'workspaceId' | 'brandId' | 'inboxId' | 'to' | 'subject' | 'messageId' | 'hold'> &
  Partial<
    Pick<
      MessageDoc,
      'campaignId' | 'enrollmentId' | 'leadId' | 'step' | 'variant' | 'inReplyTo' | 'references' | 'answersReplyId' | 'bodyText'
    >
  >;

/** Claims a message before it is sent: its record, or null when it was claimed already (by anyone, ever). */
export async function claimMessage(message: NewMessage): Promise<MessageDoc | null> {
  return (await claimMessages([message])).has(message._id) ? ({ ...message, status: 'claimed', attempts: 1 } as MessageDoc) : null;
}

/**
 * Claims many messages with one insert: the ids claimed here (the others were claimed already, by anyone, ever).
 * Journaled: a claim a power loss undid after its SMTP call would let the message go out again.
 */
export async function claimMessages(messages: NewMessage[]): Promise<Set<string>> {
  return insertNew(
    Message,
    messages.map((message) => ({ ...message, status: 'claimed', attempts: 1 })),
    journaled,
  );
}

/**
 * Claims attempt `attempt` of a deferred message, from `inbox` (the one with
 * a free slot now; nothing went out before, so its Message-ID is made anew in
 * that inbox's domain, under `hold`): one conditional update, so only one caller moves it
 * from its previous attempt. Its record, or null when someone else claimed that attempt. Journaled, as claims are.
 */
export async function claimRetry(
  recordId: string,
  attempt: number,
  inbox: { id: string; from: string },
  hold: string,
): Promise<MessageDoc | null> {
  return Message.findOneAndUpdate(
    { _id: recordId, status: 'deferred', attempts: attempt - 1 },
    {
      $set: { status: 'claimed', attempts: attempt, retryAt: null, inboxId: inbox.id, messageId: newMessageId(recordId, inbox.from), hold },
    },
    { returnDocument: 'after', writeConcern: journaled },
  ).lean<MessageDoc>();
}

export const findMessage = (recordId: string) => Message.findById(recordId).lean<MessageDoc>();

/** Steps a sequence has at most (schema/outreach/sequences.ts). */
const maxSteps = 10;

/** The messages a campaign sent (or tried to) to a lead: its step records, read by primary key. */
export const campaignMessagesTo = (campaignId: string, leadId: string) =>
  Message.find({ _id: { $in: Array.from({ length: maxSteps }, (_, step) => stepRecordId(`${campaignId}:${leadId}`, step)) } }).lean<
    MessageDoc[]
  >();

/** The answers sent to these replies (POST /api/outreach/replies/{id}/reply). */
export const answersTo = (replyIds: string[]) =>
  replyIds.length ? Message.find({ answersReplyId: { $in: replyIds } }).lean<MessageDoc[]>() : Promise.resolve([]);

/** The records of these ids that exist, by id. */
export async function findMessages(recordIds: string[]): Promise<Map<string, MessageDoc>> {
  const docs = recordIds.length ? await Message.find({ _id: { $in: recordIds } }).lean<MessageDoc[]>() : [];
  return new Map(docs.map((doc) => [doc._id, doc]));
}

/**
 * The latest messages sent to `address` since `since`, newest first: for a
 * reply that names none of our Message-IDs (a filter, not a key: it may
 * read the whole collection, so it is the last resort).
 */
export const sentMessagesTo = (workspaceId: string, address: string, since: Date) =>
  Message.find({ workspaceId, to: { $in: [...new Set([address, address.toLowerCase()])] }, status: 'sent', sentAt: { $gte: since } })
    .sort({ sentAt: -1 })
    .limit(20)
    .lean<MessageDoc[]>();

/** The workspace's messages to `address` (any case) or to the leads `leadIds`: what a privacy request covers, not index-served. */
const namingFilter = (workspaceId: string, address: string, leadIds: string[]) => ({
  workspaceId,
  $or: [{ to: sameTextAnyCase(address) }, ...(leadIds.length ? [{ leadId: { $in: leadIds } }] : [])],
});

export const messagesNaming = (workspaceId: string, address: string, leadIds: string[]) =>
  Message.find(namingFilter(workspaceId, address, leadIds))
    .sort({ createdAt: -1 })
    .lean<MessageDoc[]>();

/** Deletes them (an erasure: the statistics and campaign counters, kept apart, keep their counts); answers how many. */
export async function eraseMessagesNaming(workspaceId: string, address: string, leadIds: string[]): Promise<number> {
  const { deletedCount } = await Message.deleteMany(namingFilter(workspaceId, address, leadIds));
  return deletedCount;
}

/** What a delivery attempt came to, as written to its record. */
export type MessageOutcome =
  | { status: 'sent'; sentAt: Date; smtpResponse: string }
  | { status: 'deferred'; retryAt: Date; error: string }
  | { status: 'failed'; error: string };

const outcomeFields = (outcome: MessageOutcome) =>
  outcome.status === 'sent'
    ? { ...outcome, error: null }
    : outcome.status === 'deferred'
      ? outcome
      : { status: outcome.status, error: outcome.error };

const writeOutcome = groupedSetEach(Message);

/**
 * Writes a message's outcome as soon as its server answered (with the
 * others answered meanwhile, in one command): the statistics events it
 * counts in, and for a send that did not go out, that its cap slots went
 * back (it no longer holds them).
 */
export function recordOutcome(recordId: string, outcome: MessageOutcome, counted: string[], gaveSlotsBack: boolean): Promise<void> {
  return writeOutcome({
    filter: { _id: recordId },
    set: { ...outcomeFields(outcome), counted, ...(gaveSlotsBack && { hold: null }) },
  });
}

/** A direct send's outcome after the fact: it failed (it is not tried again). */
export async function markFailed(recordId: string, error: string): Promise<void> {
  await setEach(Message, [{ filter: { _id: recordId }, set: outcomeFields({ status: 'failed', error }) }]);
}

/** A claim whose send never came back (the worker died): not sent again, reported. True for the one caller that marked it. */
export async function markInterrupted(recordId: string): Promise<boolean> {
  const marked = await Message.updateOne(
    { _id: recordId, status: 'claimed' },
    { $set: { status: 'interrupted', error: 'the send was interrupted after it was claimed; it is not sent again' } },
  );
  return marked.modifiedCount === 1;
}

/** The first open of a sent message, or null when it was opened before (or is unknown, or was not sent). */
export async function recordFirstOpen(recordId: string): Promise<MessageDoc | null> {
  return Message.findOneAndUpdate(
    { _id: recordId, status: 'sent', openedAt: null },
    { $set: { openedAt: now() } },
    { returnDocument: 'after' },
  ).lean<MessageDoc>();
}
