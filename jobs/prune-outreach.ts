import { pruneSoftBounces, pruneSendCounts, pruneOutreachStats } from '../src/outreach/index.ts';
import { pruneOutreachJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Sending slots past their day, stats buckets and soft-bounce counts past their keeping time go (FerretDB has no TTL indexes). */
export const pruneOutreachHandler = handleJob(pruneOutreachJob, {
  async handle() {
    await pruneSendCounts();
    await pruneOutreachStats();
    await pruneSoftBounces();
  },
});
