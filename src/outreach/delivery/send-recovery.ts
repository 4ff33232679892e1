import { nowMs } from '../../clock.ts';
import { recordLeadActivity } from '../../leads/index.ts';
import { log } from '../../logger.ts';
import { recordsActivity } from './message-activity.ts';
import { Message, type MessageDoc } from './message.model.ts';
import { forgetHold, holdsOpenedBefore } from './send-holds.ts';
import { countsUnderHold, settleHoldOnCount } from '../counters/send-slots.ts';
import { countOutcomes, writeCounts } from './settle-counts.ts';
import type { SendHoldDoc } from './send-hold.model.ts';

/**
 * Longer than any send takes (the SMTP socket times out after a minute): a
 * claim, or a hold none of whose messages moved, this old has no worker left.
 */
export const deadAfterMs = 10 * 60_000;

/** What a recovery reads of a hold's messages. */
const recordFields = {
  hold: 1,
  status: 1,
  counted: 1,
  updatedAt: 1,
  workspaceId: 1,
  brandId: 1,
  inboxId: 1,
  campaignId: 1,
  step: 1,
  variant: 1,
  to: 1,
  messageId: 1,
  leadId: 1,
  sentAt: 1,
  answersReplyId: 1,
};

/**
 * Closes the send holds of workers that died, from the message records:
 * what they recorded is counted and added to the leads' activity (the batch a worker had marked and not
 * finished is finished, each counter taking only what it had not; a batch
 * not begun is counted by this process), and each count keeps exactly the
 * slots of the hold's messages that went out or may have (sent, refused by
 * the server, or still claimed: unknown), the rest given back. Safe to run
 * in any number of processes at once. Answers how many holds it closed.
 */
export async function recoverDeadHolds(): Promise<number> {
  const cutoff = nowMs() - deadAfterMs;
  let closed = 0;
  for (const hold of await holdsOpenedBefore(new Date(cutoff))) {
    const records = (await Message.find({ _id: { $in: hold.records } }, recordFields).lean<MessageDoc[]>()).filter(
      (record) => record.hold === hold._id,
    );
    // A message of it moved lately: its worker is still at it.
    if (records.some((record) => record.updatedAt.getTime() > cutoff)) continue;
    const settled = records.filter((record) => record.status !== 'claimed' && record.status !== 'interrupted');
    if (hold.effects) await writeCounts(hold.effects, settled);
    // Someone else began counting it meanwhile: theirs to finish.
    else if (!(await countOutcomes(hold._id, settled))) continue;
    // Their leads' activity, which the dead worker wrote beside the counts, or not (entry ids make a second write none).
    await recordLeadActivity(recordsActivity(settled));
    await keepUsedSlots(hold, records);
    await forgetHold(hold._id);
    closed++;
    log.warn('closed the send hold of a worker that died mid-send', { hold: hold._id, messages: records.length });
  }
  return closed;
}

/** Each count keeps the slots of the hold's messages that hold one (by inbox for an inbox's count). */
async function keepUsedSlots(hold: SendHoldDoc, records: MessageDoc[]): Promise<void> {
  for (const { count, scope, slots } of await countsUnderHold(hold._id)) {
    const [kind, id] = scope.split(':') as [string, string];
    const kept = records.filter((record) => (kind === 'inbox' ? record.inboxId === id : record.campaignId === id)).length;
    await settleHoldOnCount(hold._id, count, slots, kept);
  }
}
