import { log } from '../src/logger.ts';
import { pruneIdleRateLimitWindows } from '../src/rate-limit/rate-limit.service.ts';
import { pruneRateLimitsJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

export const pruneRateLimitsHandler = handleJob(pruneRateLimitsJob, {
  async handle() {
    const removed = await pruneIdleRateLimitWindows();
    if (removed) log.debug('pruned idle rate-limit windows', { removed });
  },
});
