import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** One pass of the sending engine over every campaign with something due. */
export const outreachTickJob = defineJobContract({
  name: 'outreach.tick',
  payload: z.object({}),
  retries: 0,
  everyMs: () => settings().OUTREACH_TICK_MS,
  lockLifetimeMs: () => 10 * 60_000,
});
