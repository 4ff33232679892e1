import type { EmailEventData } from '../../../schema/outreach/email-events.ts';
import { emitEvents, type EventToEmit } from '../../events/events.service.ts';
import { eventsListenedTo } from '../../webhooks/index.ts';
import type { MessageDoc } from './message.model.ts';

/** What an `outreach.email.*` event needs of its message. */
export type EmailEventRecord = Pick<
  MessageDoc,
  '_id' | 'workspaceId' | 'messageId' | 'campaignId' | 'leadId' | 'inboxId' | 'step' | 'variant'
>;

export const emailEventData = (record: EmailEventRecord, at: Date): EmailEventData => ({
  message_id: record.messageId,
  campaign_id: record.campaignId ?? null,
  lead_id: record.leadId ?? null,
  inbox_id: record.inboxId,
  step: record.step ?? null,
  variant: record.variant ?? null,
  at: at.toISOString(),
});

/**
 * Stores the email events an endpoint listens to, and no others: their one reader is the webhook fan-out (no
 * subscriber of the worker takes them), and a campaign no endpoint hears would otherwise write an outbox entry, and
 * the dispatcher clear it, for each message, open and click. An endpoint made later hears the events after it.
 */
const emitListenedTo = async (events: EventToEmit[]) => emitEvents(await eventsListenedTo(events));

/**
 * `outreach.email.sent` for messages the SMTP server accepted, with one insert for all (the sending engine's
 * batches of counts call this). A message goes out once, so its record's id is the event's subject: a batch
 * counted again after a crash stores no second event.
 */
export function emitSentEvents(sent: Array<EmailEventRecord & { sentAt: Date }>): Promise<void> {
  return emitListenedTo(
    sent.map((record): EventToEmit<'outreach.email.sent'> => ({
      workspaceId: record.workspaceId,
      type: 'outreach.email.sent',
      data: emailEventData(record, record.sentAt),
      subject: record._id,
    })),
  );
}

/** `outreach.email.opened` for a message's first open (its subject the record: stored once). */
export const emitOpenedEvent = (record: EmailEventRecord, at: Date) =>
  emitListenedTo([
    { workspaceId: record.workspaceId, type: 'outreach.email.opened', data: emailEventData(record, at), subject: record._id },
  ]);

/** `outreach.email.clicked` for the first click of each link (its subject the record and the address: stored once). */
export const emitClickedEvents = (clicks: Array<{ record: EmailEventRecord; url: string; at: Date }>) =>
  emitListenedTo(
    clicks.map(({ record, url, at }): EventToEmit<'outreach.email.clicked'> => ({
      workspaceId: record.workspaceId,
      type: 'outreach.email.clicked',
      data: { ...emailEventData(record, at), url },
      subject: `${record._id}\n${url}`,
    })),
  );
