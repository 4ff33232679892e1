import { nowMs } from '../clock.ts';
import { creditsSpent } from '../metrics/metrics.ts';
import { getWorkspace, workspaceTimezone } from '../workspaces/index.ts';
import { debitAtomically } from './atomic-debit.ts';
import { CreditBalance, type CreditBalanceDoc, type DaySpending } from './credit-balance.model.ts';
import { daysBefore, keptDays, localDate } from './daily-spending.ts';
import { readBalance, type ChargeOnce, type CreditKind, type Debit } from './debit-rules.ts';

export { daysBefore, localDate } from './daily-spending.ts';
export { creditKinds, creditsExhausted, UsageAccountClosedError, type ChargeOnce, type CreditKind, type Debit } from './debit-rules.ts';

export interface Balances {
  crawl: number;
  agent: number;
  validation: number;
  overage: boolean;
}

const toBalances = (doc: CreditBalanceDoc | null): Balances => ({
  crawl: doc?.crawl ?? 0,
  agent: doc?.agent ?? 0,
  validation: doc?.validation ?? 0,
  overage: doc?.overage ?? false,
});

export async function getBalances(workspaceId: string): Promise<Balances> {
  return toBalances(await readBalance(workspaceId));
}

export async function setBalances(workspaceId: string, changes: Partial<Balances>): Promise<Balances> {
  const doc = await CreditBalance.findOneAndUpdate(
    { _id: workspaceId },
    { $set: changes },
    { upsert: true, returnDocument: 'after' },
  ).lean<CreditBalanceDoc>();
  return toBalances(doc);
}

/**
 * Takes `amount` credits of one kind: the balance never goes below zero.
 * With overage off a short balance is a 402 (or the kind's code) and
 * nothing is taken; with overage on the balance is emptied and the rest
 * recorded as overage. With `once`, an item already charged to the account
 * is not charged again (the answer says `repeated`).
 */
export async function debitCredits(workspaceId: string, kind: CreditKind, amount: number, once?: ChargeOnce): Promise<Debit> {
  const day = localDate(nowMs(), workspaceTimezone(await getWorkspace(workspaceId)));
  const debit = await debitAtomically(workspaceId, kind, amount, day, once);
  creditsSpent.inc({ kind }, debit.charged + debit.overage);
  return debit;
}

export interface Usage {
  /** Items charged so far. */
  items: number;
  charged: number;
  overage: number;
  /** The sequence number the next item must have: items numbered below it were charged (or skipped). */
  next: number;
}

/** What a usage account has been charged so far (zeros when it has none). */
export async function usageOf(workspaceId: string, account: string): Promise<Usage> {
  const found = (await readBalance(workspaceId))?.usage?.[account];
  return { items: found?.items ?? 0, charged: found?.charged ?? 0, overage: found?.overage ?? 0, next: found?.next ?? 0 };
}

/** Opens a usage account for work about to charge items to it (an account already open is left as it is). */
export async function openUsage(workspaceId: string, account: string): Promise<void> {
  const path = `usage.${account}`;
  await CreditBalance.updateOne(
    { _id: workspaceId, [path]: { $exists: false } },
    { $set: { [path]: { items: 0, next: 0, charged: 0, overage: 0 } } },
  );
}

/** Closes a usage account once its work has ended (its totals stored with the work) or was deleted: later charges to it are refused. */
export async function closeUsage(workspaceId: string, account: string): Promise<void> {
  await CreditBalance.updateOne({ _id: workspaceId }, { $unset: { [`usage.${account}`]: '' } });
}

/**
 * Credits spent per workspace-local date, as each debit recorded them;
 * dates more than the kept days before `today` are cleared on the way (those
 * a workspace that went a while without debits still holds).
 */
export async function spendingByDay(workspaceId: string, today: string): Promise<Record<string, DaySpending>> {
  const spent = (await readBalance(workspaceId))?.spent ?? {};
  const stale = Object.keys(spent).filter((day) => day < daysBefore(today, keptDays));
  if (stale.length)
    await CreditBalance.updateOne({ _id: workspaceId }, { $unset: Object.fromEntries(stale.map((day) => [`spent.${day}`, ''])) });
  return spent;
}
