/** The validation domain's front door: running a validation job (the worker) and the pruning of its records. */
export { giveUpJob } from './run/job-lifecycle.ts';
export { runValidationJob } from './run/run-job.ts';
export { requeueStrandedValidationJobs, validationRetention } from './validation.service.ts';
