import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Starts the runs of the scrape schedules that are due. */
export const schedulesFireJob = defineJobContract({
  name: 'schedules.fire',
  payload: z.object({}),
  retries: 0,
  everyMs: () => settings().SCHEDULES_TICK_MS,
});
