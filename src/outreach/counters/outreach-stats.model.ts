import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

const count = { type: Number, default: 0, required: true };

/**
 * Outreach counters by scope and period, one document per bucket: an hour
 * (`<scope>:h:<hour index>`) or a UTC day (`<scope>:d:<YYYY-MM-DD>`). A
 * scope is `inbox:<id>`, `campaign:<id>`, `brand:<id>` or `workspace:<id>`. Rolling
 * figures (sent in the last 24 hours, 14-day totals) are sums of buckets read
 * by primary key; old buckets are pruned by a job.
 */
const outreachStatsSchema = new Schema(
  {
    _id: { type: String, required: true },
    scope: { type: String, required: true },
    /** Hour index (ms / 3,600,000) or UTC day (YYYY-MM-DD). */
    period: { type: String, required: true },
    sent: count,
    failed: count,
    opened: count,
    /** First clicks of a message's links (each link of a message once). */
    clicked: count,
    bounced: count,
    replied: count,
    unsubscribed: count,
    /** Complaints: recipients who marked a message as spam (feedback reports). */
    complained: count,
    /** The last batch of each sending process counted here (see recordOutreachEvents). */
    applied: { type: Schema.Types.Mixed, default: undefined },
    /** When the bucket's period ends: pruning reads this. */
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export type OutreachStatsDoc = InferRawDocTypeFromSchema<typeof outreachStatsSchema>;
export const OutreachStats = mongoose.model('OutreachStats', outreachStatsSchema, 'outreach_stats');
