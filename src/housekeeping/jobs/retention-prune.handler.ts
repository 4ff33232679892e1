import type { RetentionRule } from '../../db/retention.ts';
import { handleJob } from '../../jobs/job-handler.ts';
import { log } from '../../logger.ts';
import { retentionRules } from '../retention-rules.ts';
import { retentionPruneJob } from './retention-prune.job.ts';

/** When this process last ran each rule (monotonic time: the records' ages are read from the service's clock). */
const lastRunAt = new Map<RetentionRule, number>();

/**
 * Runs every retention rule whose interval has passed. A rule that fails leaves the others to run; the job then
 * fails with its error, and the rule runs again at the next pass.
 */
export const retentionPruneHandler = handleJob(retentionPruneJob, {
  async handle() {
    let failure: { error: unknown } | undefined;
    for (const rule of retentionRules) {
      if (performance.now() - (lastRunAt.get(rule) ?? -Infinity) < rule.everyMs) continue;
      try {
        const removed = await rule.prune();
        lastRunAt.set(rule, performance.now());
        if (removed) log.debug('records past their keeping time removed', { records: rule.records, removed });
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  },
});
