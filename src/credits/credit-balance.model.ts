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

export type CreditBalanceDoc = Omit<InferRawDocTypeFromSchema<typeof creditBalanceSchema>, 'usage'> & { usage?: Record<string, UsageAccount> };
export const CreditBalance = mongoose.model('CreditBalance', creditBalanceSchema, 'credit_balances');
