import { router } from '../trpc/init.ts';
import { checkAddressProcedure } from './check-address.ts';
import { findEmailProcedure } from './find-email.ts';
import { cancelValidationJobProcedure } from './cancel-validation-job.ts';
import { getValidationJobProcedure } from './get-validation-job.ts';
import { listValidationJobsProcedure } from './list-validation-jobs.ts';
import { listValidationResultsProcedure } from './list-validation-results.ts';
import { startValidationProcedure } from './start-validation.ts';

export const validationRouter = router({
  start: startValidationProcedure,
  jobs: listValidationJobsProcedure,
  job: getValidationJobProcedure,
  cancel: cancelValidationJobProcedure,
  results: listValidationResultsProcedure,
  findEmail: findEmailProcedure,
  checkAddress: checkAddressProcedure,
});
