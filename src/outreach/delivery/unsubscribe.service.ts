import { now } from '../../clock.ts';
import { markUnsubscribed, recordLeadActivity } from '../../leads/index.ts';
import { messageActivity } from './message-activity.ts';
import { stopLeadEnrollments } from './enrollment-state.ts';
import { isSuppressed, suppressAddress } from '../suppressions/suppressions.service.ts';
import { emitOpenedEvent } from './email-events.ts';
import { countMessageEffect } from './message-effects.ts';
import { findMessage, recordFirstOpen } from './messages.service.ts';

/**
 * Unsubscribes the recipient of a message: the address goes on the
 * do-not-contact list, the lead (if any) gets `unsubscribed_at`, and all
 * its enrollments end. Idempotent; false for a message that is not ours.
 */
export async function unsubscribeRecipient(recordId: string): Promise<boolean> {
  const record = await findMessage(recordId);
  if (!record) return false;
  const already = await isSuppressed(record.workspaceId, record.to);
  await suppressAddress(record.workspaceId, record.to, 'unsubscribe', 'unsubscribe_link');
  if (record.leadId) {
    await markUnsubscribed(record.leadId, { source: 'unsubscribe_link', campaignId: record.campaignId, messageId: record._id });
    await stopLeadEnrollments(record.workspaceId, record.leadId, 'unsubscribed');
  }
  if (!already) {
    await countMessageEffect(record, 'unsubscribed');
  }
  return true;
}

/**
 * Records a message's first open (the pixel); later loads change nothing.
 * Its `outreach.email.opened` event is stored before the open is marked
 * (its id comes from the message): a process dying between the two leaves
 * the next load of the pixel to mark it, finding the event stored.
 */
export async function recordOpen(recordId: string): Promise<void> {
  const record = await findMessage(recordId);
  if (!record || record.status !== 'sent' || record.openedAt) return;
  await emitOpenedEvent(record, now());
  const opened = await recordFirstOpen(recordId);
  if (!opened) return;
  await countMessageEffect(opened, 'opened');
  if (opened.leadId) await recordLeadActivity([messageActivity(opened, 'outreach.email.opened', opened.openedAt!)]);
}
