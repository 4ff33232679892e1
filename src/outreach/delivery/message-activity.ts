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

type SentRecord = Pick<MessageDoc, '_id' | 'workspaceId' | 'leadId' | 'campaignId' | 'step' | 'variant' | 'answersReplyId'>;

/** What sends add to their leads' stories: a message that went out (or an answer to a reply), a refusal at RCPT. */
function sendsActivity(sends: Array<{ record: SentRecord; sentAt: Date | null; bounce: { at: Date; code: string | null } | null }>) {
  return sends.flatMap(({ record, sentAt, bounce }): LeadActivityEntry[] => {
    if (!record.leadId) return [];
    if (bounce)
      return [
        messageActivity(record, 'outreach.email.bounced', bounce.at, { bounce_type: 'hard', code: bounce.code, source: 'smtp_rejection' }),
      ];
    if (!sentAt) return [];
    return record.answersReplyId
      ? [messageActivity(record, 'outreach.reply.sent', sentAt, { reply_id: record.answersReplyId })]
      : [messageActivity(record, 'outreach.email.sent', sentAt)];
  });
}

/** What a batch of answered sends adds to their leads' stories. */
export const answersActivity = (answers: Answer[], at: Date): LeadActivityEntry[] =>
  sendsActivity(
    answers.map(({ request: { record }, delivery }) => ({
      record,
      sentAt: delivery.outcome === 'sent' ? delivery.sentAt : null,
      bounce: delivery.outcome === 'bounced' ? { at, code: delivery.code } : null,
    })),
  );

/**
 * The same facts read back from stored message records (a dead worker's chunk, closed by send-recovery.ts): a record
 * sent, or refused at RCPT (counted as bounced; the server's code is not kept on the record).
 */
export const recordsActivity = (records: Array<SentRecord & Pick<MessageDoc, 'status' | 'counted' | 'sentAt' | 'updatedAt'>>) =>
  sendsActivity(
    records.map((record) => ({
      record,
      sentAt: record.status === 'sent' ? (record.sentAt ?? null) : null,
      bounce: record.counted?.includes('bounced') ? { at: record.updatedAt, code: null } : null,
    })),
  );
