import { giveUpJob, runValidationJob } from '../src/validation/index.ts';
import { validateEmailsJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/**
 * One run of an email validation job: queued when the job is created, and
 * again (with `at`) for the addresses that got a temporary answer, at their
 * retry time. Three starts at most per run (a dead worker's included), then
 * the job fails.
 */
export const validateEmailsHandler = handleJob(validateEmailsJob, {
  handle: ({ jobId, at }) => runValidationJob(jobId, at),
  giveUp: ({ jobId }, reason) => giveUpJob(jobId, reason),
});
