import mongoose, { Schema } from 'mongoose';
import { withKeyLock } from '../db/key-lock.ts';
import { updateIfMatches } from '../db/update-if-matches.ts';
import { AppError, type ErrorCode } from '../errors/app-error.ts';

export const creditKinds = ['crawl', 'agent', 'validation'] as const;
export type CreditKind = (typeof creditKinds)[number];

const creditSchema = new Schema(
  {
    _id: String, // the workspace id
    crawl: { type: Number, default: 0 },
    agent: { type: Number, default: 0 },
    validation: { type: Number, default: 0 },
    overage: { type: Boolean, default: false },
    /** Credits spent beyond the balance while overage was on, to be billed. */
    overageUsed: {
      crawl: { type: Number, default: 0 },
      agent: { type: Number, default: 0 },
      validation: { type: Number, default: 0 },
    },
  },
  { versionKey: false, timestamps: true },
);

interface CreditDoc {
  _id: string;
  crawl: number;
  agent: number;
  validation: number;
  overage: boolean;
  overageUsed: Record<CreditKind, number>;
}

const CreditBalance = mongoose.model<CreditDoc>('CreditBalance', creditSchema, 'credit_balances');

export interface Balances {
  crawl: number;
  agent: number;
  validation: number;
  overage: boolean;
}

const exhaustedCode: Record<CreditKind, ErrorCode> = {
  crawl: 'insufficient_credits',
  agent: 'insufficient_credits',
  validation: 'validation_credits_exhausted',
};

const toBalances = (doc: CreditDoc | null): Balances => ({
  crawl: doc?.crawl ?? 0,
  agent: doc?.agent ?? 0,
  validation: doc?.validation ?? 0,
  overage: doc?.overage ?? false,
});

export async function getBalances(workspaceId: string): Promise<Balances> {
  return toBalances(await CreditBalance.findById(workspaceId).lean<CreditDoc>());
}

export async function setBalances(workspaceId: string, changes: Partial<Balances>): Promise<Balances> {
  const doc = await withKeyLock(`credits:${workspaceId}`, () =>
    CreditBalance.findOneAndUpdate({ _id: workspaceId }, { $set: changes }, { upsert: true, returnDocument: 'after' }).lean<CreditDoc>(),
  );
  return toBalances(doc);
}

export interface Debit {
  /** Credits taken from the balance. */
  charged: number;
  /** Credits spent beyond the balance because overage is on. */
  overage: number;
  remaining: number;
}

/**
 * Takes `amount` credits of one kind, atomically: the balance never goes
 * below zero. With overage off a short balance is a 402 and nothing is
 * taken; with overage on the balance is emptied and the rest recorded as
 * overage.
 */
export function debitCredits(workspaceId: string, kind: CreditKind, amount: number): Promise<Debit> {
  return withKeyLock(`credits:${workspaceId}`, async () => {
    for (;;) {
      const taken = await updateIfMatches(CreditBalance, workspaceId, { [kind]: { $gte: amount } }, { $inc: { [kind]: -amount } });
      if (taken) return { charged: amount, overage: 0, remaining: taken[kind] };

      const stored = await CreditBalance.findById(workspaceId).lean<CreditDoc>();
      const current = toBalances(stored);
      if (!stored || !current.overage) {
        throw new AppError(exhaustedCode[kind], `Not enough ${kind} credits: ${amount} needed, ${current[kind]} left`, {
          needed: amount,
          remaining: current[kind],
        });
      }
      // Empty the balance only if nobody changed it since we read it; otherwise try again.
      const emptied = await updateIfMatches(
        CreditBalance,
        workspaceId,
        { [kind]: current[kind] },
        { $set: { [kind]: 0 }, $inc: { [`overageUsed.${kind}`]: amount - current[kind] } },
      );
      if (emptied) return { charged: current[kind], overage: amount - current[kind], remaining: 0 };
    }
  });
}

/** Gives credits back, for work that was paid for but not done. */
export async function refundCredits(workspaceId: string, kind: CreditKind, amount: number): Promise<void> {
  await withKeyLock(`credits:${workspaceId}`, () =>
    CreditBalance.updateOne({ _id: workspaceId }, { $inc: { [kind]: amount } }, { upsert: true }),
  );
}
