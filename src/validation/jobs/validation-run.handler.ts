import { handleJob } from '../../jobs/job-handler.ts';
import { giveUpJob } from '../run/job-lifecycle.ts';
import { runValidationJob } from '../run/run-job.ts';
import { validationRunJob } from './validation-run.job.ts';

/**
 * One run of an email validation job: queued when the job is created, and
 * again (with `at`) for the addresses that got a temporary answer, at their
 * retry time. Three starts at most per run (a dead worker's included), then
 * the job fails.
 */
export const validationRunHandler = handleJob(validationRunJob, {
  handle: ({ jobId, at }) => runValidationJob(jobId, at),
  giveUp: ({ jobId }, reason) => giveUpJob(jobId, reason),
});
