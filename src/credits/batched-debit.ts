import { withKeyLock } from '../db/key-lock.ts';
import { CreditBalance } from './credit-balance.model.ts';
import { alreadyCharged, chargeSpan, creditsExhausted, readBalance, usageAccountIn, UsageAccountClosedError, type ChargeOnce, type CreditKind, type Debit } from './debit-rules.ts';

interface Pending {
  kind: CreditKind;
  amount: number;
  once?: ChargeOnce;
  settle: (outcome: { debit: Debit } | { error: Error }) => void;
}

const waiting = new Map<string, Pending[]>();

/**
 * Debits on FerretDB, where one process serves the store and writes to a
 * balance are serialized in it (key-lock.ts): the debits that arrive while
 * one write is under way are decided together against the balance as read,
 * in arrival order, and stored in one write. Concurrent runs of a workspace
 * then share each read and write instead of queueing one page at a time.
 */
export function debitInBatches(workspaceId: string, kind: CreditKind, amount: number, once?: ChargeOnce): Promise<Debit> {
  return new Promise((resolve, reject) => {
    const settle = (outcome: { debit: Debit } | { error: Error }) => ('debit' in outcome ? resolve(outcome.debit) : reject(outcome.error));
    const queue = waiting.get(workspaceId);
    if (queue) return void queue.push({ kind, amount, once, settle });
    waiting.set(workspaceId, [{ kind, amount, once, settle }]);
    void withKeyLock(`credits:${workspaceId}`, async () => {
      const batch = waiting.get(workspaceId)!;
      waiting.delete(workspaceId);
      await applyBatch(workspaceId, batch).catch((error: Error) => batch.forEach((pending) => pending.settle({ error })));
    });
  });
}

async function applyBatch(workspaceId: string, batch: Pending[]): Promise<void> {
  const stored = await readBalance(workspaceId);
  const balance = { crawl: stored?.crawl ?? 0, agent: stored?.agent ?? 0, validation: stored?.validation ?? 0 };
  // Each account's next sequence as the batch moves it.
  const next = new Map<string, number>();
  const inc: Record<string, number> = {};
  const set: Record<string, number> = {};
  const add = (path: string, value: number) => (inc[path] = (inc[path] ?? 0) + value);
  const outcomes: Array<{ debit: Debit } | { error: Error }> = batch.map(({ kind, amount, once }) => {
    if (once && !usageAccountIn(stored, once)) return { error: new UsageAccountClosedError(once.account) };
    if (alreadyCharged(stored, once) || (once && once.sequence < (next.get(once.account) ?? 0))) {
      return { debit: { charged: 0, overage: 0, remaining: balance[kind], repeated: true } };
    }
    const taken = Math.min(amount, balance[kind]);
    if (taken < amount && !stored?.overage) return { error: creditsExhausted(kind, amount, balance[kind]) };
    balance[kind] -= taken;
    add(kind, -taken);
    if (amount > taken) add(`overageUsed.${kind}`, amount - taken);
    if (once) {
      const span = chargeSpan(once);
      next.set(once.account, span.next);
      set[`usage.${once.account}.next`] = span.next;
      add(`usage.${once.account}.items`, span.items);
      add(`usage.${once.account}.charged`, taken);
      add(`usage.${once.account}.overage`, amount - taken);
    }
    return { debit: { charged: taken, overage: amount - taken, remaining: balance[kind], repeated: false } };
  });
  if (Object.keys(inc).length) await CreditBalance.updateOne({ _id: workspaceId }, { $inc: inc, $set: set });
  batch.forEach((pending, index) => pending.settle(outcomes[index]!));
}
