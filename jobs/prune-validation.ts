import { pruneValidationRecords } from '../src/validation/index.ts';
import { pruneValidationJob } from '../src/jobs/contracts.ts';
import { handleJob } from './job-handler.ts';

/** Per-address results past their 30 days, and working state a dead run left, go (FerretDB has no TTL indexes). */
export const pruneValidationHandler = handleJob(pruneValidationJob, {
  handle: () => pruneValidationRecords(),
});
