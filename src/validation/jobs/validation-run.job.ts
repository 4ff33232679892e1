import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/** Validates a validation job's addresses, from where it stands; `at` is when a job waiting on greylisting is due again. */
export const validationRunJob = defineJobContract({
  name: 'validation.run',
  payload: z.object({ jobId: z.uuid(), at: z.iso.datetime().optional() }),
  retries: 2,
  lockLifetimeMs: () => settings().VALIDATION_LOCK_LIFETIME_MS,
});
