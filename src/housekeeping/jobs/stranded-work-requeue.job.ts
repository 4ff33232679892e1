import { z } from 'zod';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Queues again the work a process recorded and died before queuing (agent runs, scrape runs, validation jobs). */
export const strandedWorkRequeueJob = defineJobContract({
  name: 'stranded-work.requeue',
  payload: z.object({}),
  retries: 0,
  everyMs: () => 10 * 60_000,
});
