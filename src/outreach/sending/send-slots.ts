import { nowMs } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { hourIndex } from '../stats/outreach-stats.service.ts';
import { SendSlot } from './send-slot.model.ts';

/**
 * Sending caps that hold across any number of processes on both stores:
 * every send first takes a numbered slot, a document whose id is unique,
 * and an insert is atomic even on FerretDB, where conditional updates are
 * not. A period allows slots 0 to allowance - 1, so it never holds more.
 *
 * - An inbox's cap is over any rolling 24 hours. Slots are numbered by
 *   the hour: in hour h it allows cap minus the slots taken in the 24 whole
 *   hours before, which cover the 24 hours before any moment of hour h, so
 *   no 24 hours ever hold more than cap sends. (A send stops counting at
 *   the end of the hour after it turns 24 hours old: up to an hour late,
 *   never early.)
 * - A campaign's daily limit is per calendar day in its time zone.
 *
 * A slot is given back (deleted) when its send did not happen; slots are
 * kept 27 hours (longer than any period that counts them), then pruned.
 */
const keepMs = 27 * 3_600_000;

/** Where each scope's next free slot probably is, in this process (a hint: slots are probed from it). */
const nextFree = new Map<string, number>();

async function takeSlot(scope: string, period: string, allowance: number, stillCurrent: () => boolean): Promise<string | null> {
  const key = `${scope}:${period}`;
  // Slots below the hint are taken, but for ones given back here (releaseSlot lowers the hint); other processes'
  // give-backs are found in the next period, which only ever errs on the side of sending less. The hint moves
  // before the insert, so concurrent sends of this process try different slots.
  for (let n = nextFree.get(key) ?? 0; n < allowance; n = nextFree.get(key) ?? 0) {
    nextFree.set(key, n + 1);
    const id = `${key}:${n}`;
    try {
      await SendSlot.create({ _id: id, scope, period, takenAt: new Date(nowMs()), expiresAt: new Date(nowMs() + keepMs) });
    } catch (error) {
      if (isDuplicateKey(error)) continue;
      lowerHint(key, n);
      throw error;
    }
    // Taken after its period ended (the clock moved while inserting): it would escape the next period's count.
    if (!stillCurrent()) {
      await releaseSlot(id);
      return null;
    }
    return id;
  }
  return null;
}

const lowerHint = (key: string, n: number) => nextFree.set(key, Math.min(nextFree.get(key) ?? 0, n));

export async function releaseSlot(id: string): Promise<void> {
  await SendSlot.deleteOne({ _id: id });
  const cut = id.lastIndexOf(':');
  lowerHint(id.slice(0, cut), Number(id.slice(cut + 1)));
}

const inboxScope = (inboxId: string) => `inbox:${inboxId}`;

/** Slots an inbox took in each of the given hours. */
async function slotsInHours(inboxId: string, hours: number[]): Promise<number> {
  return SendSlot.countDocuments({ scope: inboxScope(inboxId), period: { $in: hours.map(String) } });
}

/** The 24 closed hours before the current one, counted once per hour and process: later give-backs only lower them. */
const pastHoursTaken = new Map<string, number>();

/** Takes one of an inbox's slots for a send now, or null when `cap` sends were taken in the rolling 24 hours. */
export async function takeInboxSlot(inboxId: string, cap: number): Promise<string | null> {
  const hour = hourIndex(nowMs());
  const key = `${inboxId}:${hour}`;
  if (!pastHoursTaken.has(key)) {
    for (const old of pastHoursTaken.keys()) if (old.startsWith(`${inboxId}:`)) pastHoursTaken.delete(old);
    pastHoursTaken.set(key, await slotsInHours(inboxId, Array.from({ length: 24 }, (_, back) => hour - 1 - back)));
  }
  const allowance = Math.max(0, cap - pastHoursTaken.get(key)!);
  return takeSlot(inboxScope(inboxId), String(hour), allowance, () => hourIndex(nowMs()) === hour);
}

/** Sends an inbox made in the last 24 hours, as its slots count them. */
export async function inboxSlotsLast24h(inboxId: string): Promise<number> {
  return SendSlot.countDocuments({ scope: inboxScope(inboxId), takenAt: { $gt: new Date(nowMs() - 24 * 3_600_000) } });
}

/** Takes one of a campaign's slots for `day` (a date in its time zone), or null when `limit` were taken that day. */
export async function takeCampaignSlot(campaignId: string, day: string, limit: number, currentDay: () => string): Promise<string | null> {
  return takeSlot(`campaign:${campaignId}`, day, limit, () => currentDay() === day);
}

/** Drops slots a day past their period. */
export async function pruneSendSlots(): Promise<number> {
  return (await SendSlot.deleteMany({ expiresAt: { $lt: new Date(nowMs()) } })).deletedCount;
}
