import { z } from 'zod';
import { settings } from '../src/config.ts';
import { giveUpJob } from '../src/validation/run/job-lifecycle.ts';
import { runValidationJob } from '../src/validation/run/run-job.ts';
import { defineJob } from './job-definition.ts';

/**
 * One run of an email validation job: queued when the job is created, and
 * again (with `at`) for the addresses that got a temporary answer, at their
 * retry time. Three starts at most per run (a dead worker's included), then
 * the job fails.
 */
export const validateEmailsJob = defineJob({
  name: 'validation.run',
  payload: z.object({ jobId: z.uuid(), at: z.iso.datetime().optional() }),
  retries: 2,
  lockLifetimeMs: () => settings().VALIDATION_LOCK_LIFETIME_MS,
  handle: ({ jobId, at }) => runValidationJob(jobId, at),
  giveUp: ({ jobId }, reason) => giveUpJob(jobId, reason),
});
