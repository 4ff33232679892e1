import { randomBytes } from 'node:crypto';
import { now } from '../../clock.ts';
import type { AppliedMark } from '../../db/counter.ts';
import { countForCampaign, type StepEffect } from '../campaigns/campaign-progress.ts';
import { eventScopes, recordOutreachEvents, type OutreachEvent } from '../counters/outreach-stats.service.ts';
import { suppressAddress } from '../suppressions/suppressions.service.ts';
import type { MessageDoc } from './message.model.ts';
import { emitSentEvents, type EmailEventRecord } from './email-events.ts';
import { markHoldCounted } from './send-holds.ts';

/** A message whose outcome was written, as its counts need it. */
export type SettledRecord = EmailEventRecord & Pick<MessageDoc, 'brandId' | 'to' | 'status' | 'counted' | 'sentAt'>;

/** A batch of counts: its writer's mark, and the time its events count at. */
export type CountsMark = AppliedMark & { at: Date };

/** This process, as the writer of the sending engine's batches of counts. */
const writer = randomBytes(9).toString('base64url');
let lastSeq = 0;
/** The batches of this process, one at a time: a document sees each writer's marks in increasing order. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Counts the outcomes of a hold's sends, once: the statistics events each
 * outcome names (`counted`), the campaign's messages sent (and refused at
 * RCPT) by step and variant, the do-not-contact entry of an address
 * refused at RCPT, and an `outreach.email.sent` event per message sent. The
 * hold is marked with the batch first, and every counter document takes
 * the batch's increment with its mark in one write, so a batch cut off by
 * a crash is finished by a recovery without counting anything twice. False
 * when the hold was counted by someone else (a recovery), and nothing was.
 */
export function countOutcomes(hold: string, records: SettledRecord[]): Promise<boolean> {
  const batch = queue.then(async () => {
    if (!records.some((record) => record.counted?.length)) return true;
    const mark = { writer, seq: ++lastSeq, at: now() };
    if (!(await markHoldCounted(hold, mark))) return false;
    await writeCounts(mark, records);
    return true;
  });
  queue = batch.catch(() => undefined);
  return batch;
}

/** The writes of a batch of counts, each only where `mark` did not reach yet: the live batch, or one a recovery finishes. */
export async function writeCounts(mark: CountsMark, records: SettledRecord[]): Promise<void> {
  const counted = records.filter((record) => record.counted?.length);
  const byCampaign = new Map<string, { sent: Array<{ step: number; variant: number }>; effects: StepEffect[] }>();
  for (const record of records) {
    const refused = record.counted?.includes('bounced');
    if ((record.status !== 'sent' && !refused) || !record.campaignId) continue;
    let counts = byCampaign.get(record.campaignId);
    if (!counts) byCampaign.set(record.campaignId, (counts = { sent: [], effects: [] }));
    const at = { step: record.step!, variant: record.variant! };
    if (record.status === 'sent') counts.sent.push(at);
    else counts.effects.push({ ...at, effect: 'refused' }, { ...at, effect: 'bounced' });
  }
  const sent = records.filter((record): record is SettledRecord & { sentAt: Date } => record.status === 'sent' && !!record.sentAt);
  // Apart documents, each taking the mark with its increment: in any order (the batches themselves go in order).
  await Promise.all([
    recordOutreachEvents(
      counted.map((record) => ({ scopes: eventScopes(record), events: record.counted as OutreachEvent[] })),
      mark.at.getTime(),
      mark,
    ),
    ...[...byCampaign].map(([campaignId, counts]) => countForCampaign(campaignId, {}, counts.sent, mark, counts.effects)),
    emitSentEvents(sent),
  ]);
  for (const record of counted) {
    if (record.counted!.includes('bounced')) await suppressAddress(record.workspaceId, record.to, 'hard_bounce', 'smtp_rejection');
  }
}
