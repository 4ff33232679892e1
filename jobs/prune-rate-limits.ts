import { z } from 'zod';
import { log } from '../src/logger.ts';
import { pruneIdleRateLimitWindows } from '../src/rate-limit/rate-limit.service.ts';
import { defineJob } from './job-definition.ts';

export const pruneRateLimitsJob = defineJob({
  name: 'rate-limits.prune',
  payload: z.object({}),
  retries: 0,
  every: '10 minutes',
  async handle() {
    const removed = await pruneIdleRateLimitWindows();
    if (removed) log.debug('pruned idle rate-limit windows', { removed });
  },
});
