import { z } from 'zod';
import { pruneSoftBounces } from '../src/outreach/replies/soft-bounces.ts';
import { pruneSendCounts } from '../src/outreach/sending/send-slots.ts';
import { pruneOutreachStats } from '../src/outreach/stats/outreach-stats.service.ts';
import { defineJob } from './job-definition.ts';

/** Sending slots past their day, stats buckets and soft-bounce counts past their keeping time go (FerretDB has no TTL indexes). */
export const pruneOutreachJob = defineJob({
  name: 'outreach.prune',
  payload: z.object({}),
  retries: 0,
  every: '1 hour',
  async handle() {
    await pruneSendCounts();
    await pruneOutreachStats();
    await pruneSoftBounces();
  },
});
