import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

const perKind = { crawl: { type: Number, default: 0 }, agent: { type: Number, default: 0 }, validation: { type: Number, default: 0 } };

/** One document per workspace: its balances, and the usage accounts of work in progress. */
const creditBalanceSchema = new Schema(
  {
    _id: { type: String, required: true }, // the workspace id
    ...perKind,
    overage: { type: Boolean, default: false },
    /** Credits spent beyond the balance while overage was on, to be billed. */
    overageUsed: perKind,
    /**
     * Usage accounts by name (for example `scrape-run:<id>`): how many items
     * were charged, what they cost, and the sequence number the next item
     * must have, written in the same atomic update as the balance, so an
     * item is charged exactly once however often the work is retried. A few
     * numbers per account keep the document small. Closed (removed) when the
     * work ends.
     */
    usage: { type: Schema.Types.Mixed, default: {} },
    /**
     * Credits spent per workspace-local date (`2026-11-25`) and kind, added
     * in the same update as each debit (src/credits/daily-spending.ts): the
     * usage report reads its last 30 days from here. Dates older than
     * ~35 days are cleared as later debits and reports pass.
     */
    spent: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, timestamps: true, minimize: false },
);

export interface UsageAccount {
  /** Items charged. */
  items: number;
  /** Items are charged in increasing sequence: one numbered below this was charged (or skipped) already. */
  next: number;
  charged: number;
  overage: number;
}

export type DaySpending = Partial<Record<'crawl' | 'agent' | 'validation', number>>;

export type CreditBalanceDoc = Omit<InferRawDocTypeFromSchema<typeof creditBalanceSchema>, 'usage' | 'spent'> & {
  usage?: Record<string, UsageAccount>;
  spent?: Record<string, DaySpending>;
};
export const CreditBalance = mongoose.model('CreditBalance', creditBalanceSchema, 'credit_balances');
