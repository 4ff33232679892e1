/** The validation domain's front door: running a validation job (the worker), the pruning of its records, and the email finder (enrichment runs). */
export { findEmail } from './finder/email-finder.service.ts';
export { giveUpJob } from './run/job-lifecycle.ts';
export { runValidationJob } from './run/run-job.ts';
export { eraseValidationResults, requeueStrandedValidationJobs, validationResultsFor, validationRetention } from './validation.service.ts';
