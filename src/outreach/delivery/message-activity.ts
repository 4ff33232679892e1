/** The facts of a message's way, as entries of its lead's activity (the leads domain stores them). */
import type { LeadActivityEntry } from '../../leads/index.ts';
import type { MessageDoc } from './message.model.ts';
import type { Answer } from './send.ts';

type MessageFact =
  'outreach.email.sent' | 'outreach.email.opened' | 'outreach.email.clicked' | 'outreach.email.bounced' | 'outreach.reply.sent';

/**
 * A fact of a message to a lead, its id derived from the message and the fact (`key`, by default the fact's type:
 * a first click per link passes its own), so recording it again stores nothing twice.
 */
export function messageActivity(
  record: Pick<MessageDoc, '_id' | 'workspaceId' | 'leadId' | 'campaignId' | 'step' | 'variant'>,
  type: MessageFact,
  at: Date,
  data?: Record<string, unknown>,
  key: string = type,
): LeadActivityEntry {
  return {
    id: `${record._id}:${key}`,
    workspaceId: record.workspaceId,
    leadId: record.leadId!,
    type,
    at,
    campaignId: record.campaignId ?? null,
    messageId: record._id,
    step: record.step ?? null,
    variant: record.variant ?? null,
    ...(data && { data }),
  };
}

/** What a batch of answered sends adds to their leads' stories: the messages that went out, and those refused at RCPT. */
export function answersActivity(answers: Answer[], at: Date): LeadActivityEntry[] {
  return answers.flatMap(({ request: { record }, delivery }) => {
    if (!record.leadId) return [];
    if (delivery.outcome === 'sent') {
      return record.answersReplyId
        ? [messageActivity(record, 'outreach.reply.sent', delivery.sentAt, { reply_id: record.answersReplyId })]
        : [messageActivity(record, 'outreach.email.sent', delivery.sentAt)];
    }
    if (delivery.outcome === 'bounced')
      return [
        messageActivity(record, 'outreach.email.bounced', at, { bounce_type: 'hard', code: delivery.code, source: 'smtp_rejection' }),
      ];
    return [];
  });
}

/**
 * The same facts read back from stored message records (a dead worker's chunk, closed by send-recovery.ts): a record
 * sent, or refused at RCPT (counted as bounced; the server's code is not kept on the record).
 */
export function recordsActivity(
  records: Array<
    Pick<
      MessageDoc,
      | '_id'
      | 'workspaceId'
      | 'leadId'
      | 'campaignId'
      | 'step'
      | 'variant'
      | 'status'
      | 'counted'
      | 'sentAt'
      | 'updatedAt'
      | 'answersReplyId'
    >
  >,
): LeadActivityEntry[] {
  return records.flatMap((record) => {
    if (!record.leadId) return [];
    if (record.counted?.includes('bounced'))
      return [
        messageActivity(record, 'outreach.email.bounced', record.updatedAt, { bounce_type: 'hard', code: null, source: 'smtp_rejection' }),
      ];
    if (record.status !== 'sent' || !record.sentAt) return [];
    return record.answersReplyId
      ? [messageActivity(record, 'outreach.reply.sent', record.sentAt, { reply_id: record.answersReplyId })]
      : [messageActivity(record, 'outreach.email.sent', record.sentAt)];
  });
}
