import { randomUUID } from 'node:crypto';
import { now } from '../../clock.ts';
import type { AppliedMark } from '../../db/counter.ts';
import { insertLean } from '../../db/lean-insert.ts';
import { SendHoldRecord, type SendHoldDoc } from './send-hold.model.ts';
import { closeHoldOnCounts, releaseSlots, type TakenSlots } from '../counters/send-slots.ts';

/**
 * A send hold: the cap slots a chunk of sends (or one direct send) takes,
 * and what became of them. Its document is written before any slot is
 * taken, each slot is taken into the count's share for the hold in the
 * same increment, and each claimed message names the hold. Closing it
 * gives back the slots its sends did not use (never claimed, claimed
 * elsewhere, or given back: a temporary failure, a listed address) and
 * keeps the rest taken for good. A worker that dies leaves the hold open:
 * a recovery (send-recovery.ts) closes it from the message records, so a
 * count ends up holding exactly the slots of messages that went out or
 * may have (unknown).
 */
export class SendHold {
  /** Slots taken and not given back, by count. */
  private readonly held = new Map<string, number>();
  /** Of those, the slots claimed sends hold, by count. */
  private readonly used = new Map<string, number>();

  readonly id: string;

  private constructor(id: string) {
    this.id = id;
  }

  /** Opens a hold for sends that would make these message records. */
  static async open(records: string[]): Promise<SendHold> {
    const hold = new SendHold(randomUUID());
    await insertLean(SendHoldRecord, [{ _id: hold.id, at: now(), records }]);
    return hold;
  }

  /** Slots taken under the hold (null: none). */
  took(taken: TakenSlots | null): void {
    if (taken) add(this.held, taken.count, taken.slots);
  }

  /** Gives some of a count's slots back at once (slots the sends cannot use). */
  async release(count: string, slots: number): Promise<void> {
    await releaseSlots([{ count, slots, hold: this.id }]);
    add(this.held, count, -slots);
  }

  /** A claimed send holds one slot of each of these counts. */
  use(counts: string[]): void {
    for (const count of counts) add(this.used, count, 1);
  }

  /** A claimed send did not go out after all: its slots come back when the hold closes. */
  unuse(counts: string[]): void {
    for (const count of counts) add(this.used, count, -1);
  }

  /** Gives back what its sends did not use and forgets the hold: one write for its counts, one for its document. */
  async close(): Promise<void> {
    const unused = new Map([...this.held].map(([count, slots]) => [count, slots - (this.used.get(count) ?? 0)]));
    await closeHoldOnCounts(this.id, unused);
    await SendHoldRecord.deleteOne({ _id: this.id });
  }
}

const add = (map: Map<string, number>, key: string, n: number) => void map.set(key, (map.get(key) ?? 0) + n);

/** Holds opened before `before` and still open. */
export const holdsOpenedBefore = (before: Date) => SendHoldRecord.find({ at: { $lt: before } }).lean<SendHoldDoc[]>();

/** Marks a hold's outcomes as being counted by `mark`'s batch: false when someone marked it first (or it is closed). */
export async function markHoldCounted(hold: string, mark: AppliedMark & { at: Date }): Promise<boolean> {
  return (await SendHoldRecord.updateOne({ _id: hold, effects: null }, { $set: { effects: mark } })).modifiedCount === 1;
}

export const forgetHold = async (hold: string) => void (await SendHoldRecord.deleteOne({ _id: hold }));
