import { z } from 'zod';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Removes the records past their keeping time, by every domain's retention rules (src/housekeeping/retention-rules.ts). */
export const retentionPruneJob = defineJobContract({
  name: 'retention.prune',
  payload: z.object({}),
  retries: 0,
  everyMs: () => 5 * 60_000,
});
