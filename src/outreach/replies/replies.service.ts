import { emitEvent } from '../../events/events.service.ts';
import { recordLeadActivity } from '../../leads/index.ts';
import { toReply } from './list-replies.service.ts';
import EmailReplyParser from 'email-reply-parser';
import { isSuppressionEntry } from '../../../schema/outreach/suppressions.ts';
import { simpleParser, type ParsedMail } from 'mailparser';
import { v5 as nameBasedId } from 'uuid';
import { nowMs } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { pauseEnrollmentUntil, stopEnrollment, stopLeadEnrollments } from '../delivery/enrollment-state.ts';
import { applyBounceGuard } from '../inboxes/inbox-sending.service.ts';
import type { MessageDoc } from '../delivery/message.model.ts';
import { findMessage, recordIdOf, sentMessagesTo } from '../delivery/messages.service.ts';
import { eventScopes, recordOutreachEvent } from '../counters/outreach-stats.service.ts';
import { countMessageEffect } from '../delivery/message-effects.ts';
import { suppressAddress } from '../suppressions/suppressions.service.ts';
import { queueAnalysis } from './analysis.service.ts';
import type { Classified } from './classified.ts';
import { classify, outOfOfficeUntil } from './classify.ts';
import { Reply, ReplyEffect, type ReplyDoc } from './reply.model.ts';
import { countSoftBounce } from './soft-bounces.ts';

/** The namespace of reply ids (UUIDv5 of the inbox and the message). */
const replyIdNamespace = '5b0c6c1e-7a43-4d1e-9a55-2f3c9f0b6d21';

/** What ingesting needs of an inbox. */
export interface ReadingInbox {
  id: string;
  workspaceId: string;
  brandId: string;
  from: string;
}

export type Ingested = 'stored' | 'already_stored' | 'own_message' | 'unreadable';

const dayMs = 24 * 3_600_000;
/** A subject without its reply and forward prefixes (Re:, AW:, Fwd: …), for comparing a reply's with ours. */
const baseSubject = (subject: string) =>
  subject
    .replace(/^(\s*(re|aw|sv|antw|fw|fwd|wg|tr)\s*(\[\d+\])?\s*:\s*)+/i, '')
    .trim()
    .toLowerCase();

/**
 * The message of ours it refers back to, if any: by the Message-IDs it
 * names (each read by primary key); failing that, the latest message sent
 * in the last 90 days to the address a bounce or complaint names (a report
 * that does not return our message's headers), or for a reply from a
 * person, to the sender with the same subject (a client that drops
 * In-Reply-To and References).
 */
async function matchSent(workspaceId: string, classified: Classified, sender: string | undefined, subject: string) {
  for (const messageId of classified.refersTo) {
    const recordId = recordIdOf(messageId);
    const record = recordId ? await findMessage(recordId) : null;
    if (record && record.workspaceId === workspaceId) return record;
  }
  const since = new Date(nowMs() - 90 * dayMs);
  if (classified.kind === 'bounce')
    return classified.bouncedEmail ? ((await sentMessagesTo(workspaceId, classified.bouncedEmail, since))[0] ?? null) : null;
  if (!sender) return null;
  const sent = await sentMessagesTo(workspaceId, sender, since);
  return sent.find((record) => baseSubject(record.subject) === baseSubject(subject)) ?? null;
}

/** The campaign a message of ours belongs to: an answer to a reply (sent through the API) is in that reply's. */
async function campaignOf(sent: MessageDoc | null): Promise<string | null> {
  if (!sent?.answersReplyId) return sent?.campaignId ?? null;
  return (await Reply.findById(sent.answersReplyId, { campaignId: 1 }).lean<Pick<ReplyDoc, 'campaignId'>>())?.campaignId ?? null;
}

/** The new text of a reply: quoted history and signatures cut (email-reply-parser). */
const newText = (mail: ParsedMail) =>
  new EmailReplyParser()
    .read(mail.text ?? '')
    .getVisibleText()
    .trim();

/** Longer bodies are cut: a mail's text has no limit, a stored document has. */
const maxBodyChars = 100_000;

/**
 * Stores one message read from an inbox's mailbox, once, and applies what
 * it means. `place` names it in the mailbox (`<UIDVALIDITY>:<UID>`) for a
 * message without a Message-ID. A copy of a message the inbox sent itself
 * is no reply and is left out; a message that cannot be parsed is passed
 * over (`unreadable`). A message read again (a crash before the cursor
 * moved) is recognized by its id before anything else is done for it.
 */
export async function ingestMessage(inbox: ReadingInbox, source: Buffer, place: string): Promise<Ingested> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(source, { keepDeliveryStatus: true });
  } catch {
    return 'unreadable';
  }
  const sender = mail.from?.value[0];
  if (sender?.address?.toLowerCase() === inbox.from.toLowerCase()) return 'own_message';
  const id = nameBasedId(`${inbox.id}\n${mail.messageId ?? place}`, replyIdNamespace);
  const earlier = await Reply.findById(id).lean<ReplyDoc>();
  if (earlier) return (void (await settle(earlier)), 'already_stored');

  const classified = classify(mail);
  const sent = await matchSent(inbox.workspaceId, classified, sender?.address, mail.subject ?? '');
  const receivedAt = mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : new Date(nowMs()); // no usable Date header: when read
  const reported = classified.bouncedEmail && isSuppressionEntry(classified.bouncedEmail) ? classified.bouncedEmail : null;
  const doc: ReplyDoc = {
    _id: id,
    workspaceId: inbox.workspaceId,
    brandId: inbox.brandId,
    inboxId: inbox.id,
    campaignId: (await campaignOf(sent)) ?? null,
    leadId: sent?.leadId ?? null,
    messageRecordId: sent?._id ?? null,
    kind: classified.kind,
    fromEmail: sender?.address ?? '',
    fromName: sender?.name ?? '',
    subject: mail.subject ?? '',
    bodyText: (classified.kind === 'reply' ? newText(mail) : (mail.text ?? '').trim()).slice(0, maxBodyChars),
    receivedAt,
    messageId: mail.messageId ?? null,
    bounceType: classified.bounceType,
    bounceCode: classified.bounceCode,
    // The report's address when it is one a list can hold, else the address of the message it returns.
    bouncedEmail: classified.kind === 'bounce' ? (reported ?? sent?.to ?? null) : null,
    complaint: classified.complaint,
    // A delivery delay notice's "retrying until …" is no return date.
    oooUntil: classified.kind === 'auto_reply' && !classified.fromMailSystem ? outOfOfficeUntil(mail, receivedAt) : null,
    effectsAppliedAt: null,
    createdAt: new Date(nowMs()),
    updatedAt: new Date(nowMs()),
  };
  try {
    await Reply.create(doc);
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return (void (await settle((await Reply.findById(id).lean<ReplyDoc>())!)), 'already_stored');
  }
  await settle(doc);
  return 'stored';
}

/**
 * Applies a stored message's effects unless that was done, then queues it
 * for sentiment analysis (after: the analyzer writes the same document,
 * and updates applied as read-then-write would lose one of two at once).
 */
async function settle(reply: ReplyDoc): Promise<void> {
  if (!reply.effectsAppliedAt) {
    await applyEffects(reply);
    await recordReplyActivity(reply);
    // Its event is stored once (its id comes from the reply's), however often this runs.
    if (reply.kind === 'reply' || reply.kind === 'bounce')
      await emitEvent(reply.workspaceId, `outreach.${reply.kind}.received`, toReply(reply, false), reply._id);
    await Reply.updateOne({ _id: reply._id }, { $set: { effectsAppliedAt: new Date(nowMs()) } });
  }
  if (reply.kind !== 'bounce' && !reply.analyzedAt) await queueAnalysis(reply._id);
}

/** What came back, in its lead's activity: a bounce or complaint as the message bounced, else a reply received. */
async function recordReplyActivity(reply: ReplyDoc): Promise<void> {
  if (!reply.leadId) return;
  const sent = reply.messageRecordId ? await findMessage(reply.messageRecordId) : null;
  const bounce = reply.kind === 'bounce';
  await recordLeadActivity([
    {
      id: `${reply._id}:received`,
      workspaceId: reply.workspaceId,
      leadId: reply.leadId,
      type: bounce ? 'outreach.email.bounced' : 'outreach.reply.received',
      at: reply.receivedAt,
      campaignId: reply.campaignId ?? null,
      messageId: reply.messageRecordId ?? null,
      step: sent?.step ?? null,
      variant: sent?.variant ?? null,
      data: bounce
        ? {
            reply_id: reply._id,
            bounce_type: reply.bounceType ?? null,
            code: reply.bounceCode ?? null,
            complaint: reply.complaint ?? false,
          }
        : { reply_id: reply._id, kind: reply.kind, subject: reply.subject },
    },
  ]);
}

/** True the first time it is asked for `key` (a unique insert): counts made by effects that may run again. */
async function firstTime(key: string): Promise<boolean> {
  try {
    await ReplyEffect.create({ _id: key });
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * What a stored message means, applied idempotently (it may run again
 * after a crash; counts are taken once): a reply ends the lead's
 * enrollment in that campaign; an
 * out-of-office with a return date holds the lead's next step until then; a
 * hard bounce suppresses the address, ends the lead's enrollments and
 * feeds the inbox's bounce figures and guard; a complaint suppresses the
 * address, ends the lead's enrollments as unsubscribed and is counted.
 * A reply and a bounce count for the step (and variant) of the message
 * they answer.
 */
async function applyEffects(reply: ReplyDoc): Promise<void> {
  const scopes = eventScopes(reply);
  const answered = reply.messageRecordId ? await findMessage(reply.messageRecordId) : null;
  const enrollmentId = answered?.enrollmentId ?? null;
  // Counted in the reply's scopes (the inbox it arrived at), for the step of the message it answers.
  const countFor = { ...reply, step: answered?.step ?? null, variant: answered?.variant ?? null };
  if (reply.kind === 'reply') {
    if (enrollmentId && reply.campaignId) await stopEnrollment({ _id: enrollmentId, campaignId: reply.campaignId }, 'replied');
    // A reply from a lead counts; mail that matches nothing we sent (newsletters, spam) does not.
    if (reply.leadId && (await firstTime(`${reply._id}:replied`))) await countMessageEffect(countFor, 'replied');
    return;
  }
  if (reply.kind === 'auto_reply' && reply.oooUntil && enrollmentId) await pauseEnrollmentUntil(enrollmentId, reply.oooUntil);
  if (reply.kind !== 'bounce' || !reply.bouncedEmail) return;
  if (reply.complaint) {
    await suppressAddress(reply.workspaceId, reply.bouncedEmail, 'complaint', 'complaint');
    if (reply.leadId) await stopLeadEnrollments(reply.workspaceId, reply.leadId, 'unsubscribed');
    if (await firstTime(`${reply._id}:complained`)) await recordOutreachEvent(scopes, 'complained');
    return;
  }
  if (reply.bounceType === 'soft') {
    // Repeated soft bounces (softBounceRule) make the address undeliverable, as a hard bounce does.
    if (!(await countSoftBounce(reply.workspaceId, reply.bouncedEmail, reply._id, reply.receivedAt.getTime()))) return;
    await suppressAddress(reply.workspaceId, reply.bouncedEmail, 'hard_bounce', 'repeated_soft_bounces');
    if (reply.leadId) await stopLeadEnrollments(reply.workspaceId, reply.leadId, 'bounced');
    return;
  }
  if (reply.bounceType !== 'hard') return;
  await suppressAddress(reply.workspaceId, reply.bouncedEmail, 'hard_bounce', 'bounce_message');
  if (reply.leadId) await stopLeadEnrollments(reply.workspaceId, reply.leadId, 'bounced');
  if (await firstTime(`${reply._id}:bounced`)) await countMessageEffect(countFor, 'bounced');
  await applyBounceGuard(reply.workspaceId, reply.inboxId);
}
