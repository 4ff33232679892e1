/**
 * A domain's records kept for a time and then removed: what they are, how often to look, and the removal.
 *
 * Neither store gets TTL indexes: the embedded FerretDB has none, and the service behaves alike on both. Each
 * domain declares its rules beside its models (expiry is also checked on every read where it matters); the
 * `retention.prune` job (src/housekeeping/) runs them all.
 */
export interface RetentionRule {
  /** The records removed, for the log. */
  records: string;
  /** How often they are looked for (ms): the job runs a rule once this has passed since this process last ran it. */
  everyMs: number;
  /** Removes the records past their keeping time; answers how many went, where it counts them. */
  prune(): Promise<number | void>;
}

export const defineRetentionRule = (rule: RetentionRule) => rule;
