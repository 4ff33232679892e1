import { nowMs } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { defineRetentionRule } from '../../db/retention.ts';
import { hourIndex } from './outreach-stats.service.ts';
import { SendCount, type SendCountDoc } from './send-count.model.ts';

/**
 * Sending caps that hold across any number of processes: a send first takes
 * a slot of its period's count, by one conditional increment that passes
 * only while the count stays within the period's allowance, so a period
 * never holds more. A slot is given back (the count decremented) when its
 * send did not happen.
 *
 * - An inbox's cap is over any rolling 24 hours. Counts are by the hour:
 *   in hour h the allowance is the cap minus the sends of the 24 whole
 *   hours before, which cover the 24 hours before any moment of hour h, so
 *   no 24 hours ever hold more than cap sends. (A send stops counting at
 *   the end of the hour after it turns 24 hours old: up to an hour late,
 *   never early.)
 * - A campaign's daily limit is per calendar day in its time zone.
 *
 * Counts are kept 27 hours (longer than any period that reads them), then pruned.
 *
 * Slots are taken under a send hold (delivery/send-holds.ts): the same increment
 * adds them to the count's `holds.<hold id>`, so a count always says how
 * many of its slots an open hold has, whatever instant its worker dies at.
 */
const keepMs = 27 * 3_600_000;

/** Slots taken together from one count (under a hold, or for good): given back together. */
export interface TakenSlots {
  count: string;
  slots: number;
  hold?: string;
}

/** How many times a take is tried again when another process changed the count between its tries. */
const attempts = 5;

/**
 * Takes up to `wanted` slots of a period's count, as many as the allowance leaves: one conditional
 * increment (upserting a new count); when the count has less room, it is read and what is left taken.
 */
async function take(
  scope: string,
  period: string,
  allowance: number,
  wanted: number,
  stillCurrent: () => boolean,
  hold?: string,
): Promise<TakenSlots | null> {
  const _id = `${scope}:${period}`;
  let slots = Math.min(wanted, allowance);
  for (let attempt = 0; slots > 0 && attempt < attempts; attempt++) {
    try {
      // Full (less room than `slots`): the filter misses an existing count, and the upsert's insert hits its _id.
      await SendCount.updateOne(
        { _id, taken: { $lte: allowance - slots } },
        {
          $inc: { taken: slots, ...(hold && { [`holds.${hold}`]: slots }) },
          $setOnInsert: { scope, period, expiresAt: new Date(nowMs() + keepMs) },
        },
        { upsert: true },
      );
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const taken = (await SendCount.findById(_id, { taken: 1 }).lean<SendCountDoc>())?.taken ?? 0;
      slots = Math.min(slots, allowance - taken);
      continue;
    }
    const taken = { count: _id, slots, hold };
    // Taken after its period ended (the clock moved meanwhile): it would escape the next period's allowance.
    if (!stillCurrent()) {
      await releaseSlots([taken]);
      return null;
    }
    return taken;
  }
  return null;
}

/** Gives slots back (their sends did not happen): one decrement per count, from its hold's share too. */
export async function releaseSlots(taken: TakenSlots[]): Promise<void> {
  const byCount = new Map<string, TakenSlots>();
  for (const { count, slots, hold } of taken) {
    const key = `${count} ${hold ?? ''}`;
    byCount.set(key, { count, hold, slots: (byCount.get(key)?.slots ?? 0) + slots });
  }
  if (!byCount.size) return;
  await SendCount.bulkWrite(
    [...byCount.values()].map(({ count, slots, hold }) => ({
      updateOne: hold
        ? // Only while the hold is open: one a recovery closed was settled from the message records.
          { filter: { _id: count, [`holds.${hold}`]: { $exists: true } }, update: { $inc: { taken: -slots, [`holds.${hold}`]: -slots } } }
        : { filter: { _id: count }, update: { $inc: { taken: -slots } } },
    })),
  );
}

/**
 * Closes a hold on its counts: the slots it took and did not use (`unused`
 * by count) go back, and what it used stays taken, for good. One write for
 * all counts; a count whose hold was closed already (by a recovery) is left.
 */
export async function closeHoldOnCounts(hold: string, unused: Map<string, number>): Promise<void> {
  if (!unused.size) return;
  await SendCount.bulkWrite(
    [...unused].map(([count, slots]) => ({
      updateOne: {
        filter: { _id: count, [`holds.${hold}`]: { $exists: true } },
        update: { $inc: { taken: -slots }, $unset: { [`holds.${hold}`]: '' } },
      },
    })),
  );
}

/** The counts a hold still has slots of: `{ count, scope, slots }` each (a recovery's read: counts are few, and not indexed by hold). */
export async function countsUnderHold(hold: string): Promise<Array<{ count: string; scope: string; slots: number }>> {
  const docs = await SendCount.find({ [`holds.${hold}`]: { $exists: true } }, { scope: 1, holds: 1 }).lean<SendCountDoc[]>();
  return docs.map((doc) => ({ count: doc._id, scope: doc.scope, slots: (doc.holds as Record<string, number>)[hold] ?? 0 }));
}

/** Closes a hold on one count, keeping `kept` of its slots taken (a recovery's): only if the count still has exactly `slots` under it. */
export async function settleHoldOnCount(hold: string, count: string, slots: number, kept: number): Promise<void> {
  await SendCount.updateOne(
    { _id: count, [`holds.${hold}`]: slots },
    { $inc: { taken: Math.min(0, kept - slots) }, $unset: { [`holds.${hold}`]: '' } },
  );
}

const inboxScope = (inboxId: string) => `inbox:${inboxId}`;

/** Sends an inbox took in each of the given hours, summed. */
async function sendsInHours(inboxId: string, hours: number[]): Promise<number> {
  const counts = await SendCount.find({ _id: { $in: hours.map((hour) => `${inboxScope(inboxId)}:${hour}`) } }, { taken: 1 }).lean<
    SendCountDoc[]
  >();
  return counts.reduce((sum, count) => sum + count.taken, 0);
}

/** The 24 closed hours before the current one, read once per hour and process: later give-backs only lower them. */
const pastHoursTaken = new Map<string, number>();

/** Takes up to `wanted` of an inbox's slots for sends now (under `hold`): as many as keep it within `cap` over the rolling 24 hours. */
export async function takeInboxSlots(inboxId: string, cap: number, wanted: number, hold?: string): Promise<TakenSlots | null> {
  const hour = hourIndex(nowMs());
  const key = `${inboxId}:${hour}`;
  if (!pastHoursTaken.has(key)) {
    for (const old of pastHoursTaken.keys()) if (old.startsWith(`${inboxId}:`)) pastHoursTaken.delete(old);
    pastHoursTaken.set(
      key,
      await sendsInHours(
        inboxId,
        Array.from({ length: 24 }, (_, back) => hour - 1 - back),
      ),
    );
  }
  const allowance = Math.max(0, cap - pastHoursTaken.get(key)!);
  return take(inboxScope(inboxId), String(hour), allowance, wanted, () => hourIndex(nowMs()) === hour, hold);
}

/** One of an inbox's slots for a send now (under `hold`), or null when `cap` sends were taken in the rolling 24 hours. */
export const takeInboxSlot = (inboxId: string, cap: number, hold?: string) => takeInboxSlots(inboxId, cap, 1, hold);

/** Sends an inbox made in the rolling 24 hours (the current hour and the 23 before), as its counts hold them. */
export function inboxSlotsLast24h(inboxId: string): Promise<number> {
  const hour = hourIndex(nowMs());
  return sendsInHours(
    inboxId,
    Array.from({ length: 24 }, (_, back) => hour - back),
  );
}

/** Takes up to `wanted` of a campaign's slots for `day` (a date in its time zone, under `hold`): as many as keep it within `limit` that day. */
export function takeCampaignSlots(
  campaignId: string,
  day: string,
  limit: number,
  wanted: number,
  currentDay: () => string,
  hold?: string,
): Promise<TakenSlots | null> {
  return take(`campaign:${campaignId}`, day, limit, wanted, () => currentDay() === day, hold);
}

/** Drops counts a day past their period. */
export async function pruneSendCounts(): Promise<number> {
  return (await SendCount.deleteMany({ expiresAt: { $lt: new Date(nowMs()) } })).deletedCount;
}

export const sendCountRetention = defineRetentionRule({
  records: 'sending slots',
  everyMs: 60 * 60_000,
  prune: pruneSendCounts,
});
