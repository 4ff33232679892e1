import { AppError } from '../errors/app-error.ts';
import { type ErrorCode } from '../../schema/error-codes.ts';
import { CreditBalance, type CreditBalanceDoc } from './credit-balance.model.ts';

export const creditKinds = ['crawl', 'agent', 'validation'] as const;
export type CreditKind = (typeof creditKinds)[number];

export interface Debit {
  /** Credits taken from the balance. */
  charged: number;
  /** Credits spent beyond the balance because overage is on. */
  overage: number;
  remaining: number;
  /** True when the item was already charged to the account: nothing was taken this time. */
  repeated: boolean;
}

/**
 * Charges item number `sequence` of usage account `account` at most once
 * (page n of a scrape run). Items are charged in increasing sequence, as
 * work that retries redoes them in the same order: an item numbered below
 * the account's next sequence was charged (or skipped) already. The account
 * must be open (openUsage): a closed one refuses the charge with
 * UsageAccountClosedError, so work that ended (or was deleted) stops paying.
 */
export interface ChargeOnce {
  account: string;
  sequence: number;
  /**
   * For one charge that pays for several items at once: the last item
   * number it covers (the account's next sequence then follows it), and how
   * many of the numbers from `sequence` to `through` it pays for (numbers
   * between may be items that cost nothing). Defaults: one item, `sequence`.
   */
  through?: number;
  items?: number;
}

/** The sequence the account expects after this charge, and the items it counts. */
export const chargeSpan = (once: ChargeOnce) => ({ next: (once.through ?? once.sequence) + 1, items: once.items ?? 1 });

export class UsageAccountClosedError extends Error {
  constructor(account: string) {
    super(`usage account ${account} is closed`);
    this.name = 'UsageAccountClosedError';
  }
}

/** The account a charge goes to, as stored: undefined when it is not open. */
export const usageAccountIn = (doc: CreditBalanceDoc | null, once: ChargeOnce) => doc?.usage?.[once.account];

const exhaustedCode: Record<CreditKind, ErrorCode> = {
  crawl: 'insufficient_credits',
  agent: 'insufficient_credits',
  validation: 'validation_credits_exhausted',
};

/** The 402 (or the kind's own code) for a balance that cannot pay and has overage off. */
export const creditsExhausted = (kind: CreditKind, amount: number, remaining: number) =>
  new AppError(exhaustedCode[kind], `Not enough ${kind} credits: ${amount} needed, ${remaining} left`, { needed: amount, remaining });

export const readBalance = (workspaceId: string) => CreditBalance.findById(workspaceId).lean<CreditBalanceDoc>();

export const alreadyCharged = (doc: CreditBalanceDoc | null, once: ChargeOnce | undefined) =>
  Boolean(once && once.sequence < (doc?.usage?.[once.account]?.next ?? 0));
