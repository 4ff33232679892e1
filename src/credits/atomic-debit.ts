import { journaled } from '../db/journaled.ts';
import { CreditBalance, type CreditBalanceDoc } from './credit-balance.model.ts';
import { daySpend } from './daily-spending.ts';
import {
  alreadyCharged,
  chargeSpan,
  creditsExhausted,
  readBalance,
  usageAccountIn,
  UsageAccountClosedError,
  type ChargeOnce,
  type CreditKind,
  type Debit,
} from './debit-rules.ts';

/** The update parts that record a charge on a usage account, in the same write as the balance. */
function accountCharge(once: ChargeOnce | undefined, charged: number, overage: number) {
  if (!once) return { condition: {}, inc: {}, set: {} };
  const path = `usage.${once.account}`;
  return {
    // Only an open account has `next`: a closed (removed) one matches nothing.
    condition: { [`${path}.next`]: { $lte: once.sequence } },
    inc: { [`${path}.items`]: chargeSpan(once).items, [`${path}.charged`]: charged, [`${path}.overage`]: overage },
    set: { [`${path}.next`]: chargeSpan(once).next },
  };
}

/**
 * The balance after `update`, applied only while it matches `condition`; null when it does not. Journaled: the
 * work it pays for goes out next (a page fetched, a model called), and a debit a power loss undid would leave it unpaid.
 */
const takeIf = (workspaceId: string, condition: Record<string, unknown>, update: Record<string, unknown>) =>
  CreditBalance.findOneAndUpdate({ _id: workspaceId, ...condition }, update, {
    returnDocument: 'after',
    writeConcern: journaled,
  }).lean<CreditBalanceDoc>();

/**
 * One debit as conditional single-document updates, which MongoDB applies
 * atomically across any number of processes: the balance is taken only if
 * it covers the amount (and the item is not charged yet); with overage on,
 * a short balance is emptied only if nobody changed it since it was read.
 * Whichever update takes it also adds the amount to `day`'s spending.
 */
export async function debitAtomically(
  workspaceId: string,
  kind: CreditKind,
  amount: number,
  day: string,
  once?: ChargeOnce,
): Promise<Debit> {
  const spend = daySpend(day, kind, amount);
  for (;;) {
    const whole = accountCharge(once, amount, 0);
    const taken = await takeIf(
      workspaceId,
      { [kind]: { $gte: amount }, ...whole.condition },
      { $inc: { [kind]: -amount, ...whole.inc, ...spend.inc }, $set: whole.set, $unset: spend.unset },
    );
    if (taken) return { charged: amount, overage: 0, remaining: taken[kind], repeated: false };

    const stored = await readBalance(workspaceId);
    const balance = stored?.[kind] ?? 0;
    if (once && !usageAccountIn(stored, once)) throw new UsageAccountClosedError(once.account);
    if (alreadyCharged(stored, once)) return { charged: 0, overage: 0, remaining: balance, repeated: true };
    // Topped up since the conditional update missed: take it whole.
    if (balance >= amount) continue;
    if (!stored?.overage) throw creditsExhausted(kind, amount, balance);
    const short = accountCharge(once, balance, amount - balance);
    const emptied = await takeIf(
      workspaceId,
      { [kind]: balance, ...short.condition },
      {
        $set: { [kind]: 0, ...short.set },
        $inc: { [`overageUsed.${kind}`]: amount - balance, ...short.inc, ...spend.inc },
        $unset: spend.unset,
      },
    );
    if (emptied) return { charged: balance, overage: amount - balance, remaining: 0, repeated: false };
  }
}
