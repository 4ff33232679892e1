import { handleJob } from '../../jobs/job-handler.ts';
import { failCsvImport } from '../csv-import.service.ts';
import { runCsvImport } from '../csv-import-run.ts';
import { leadsImportJob } from './leads-import.job.ts';

/** One run of a CSV import (queued when its file is stored); given up, the import is marked failed. */
export const leadsImportHandler = handleJob(leadsImportJob, {
  handle: ({ importId }) => runCsvImport(importId),
  giveUp: ({ importId }, reason) => failCsvImport(importId, reason.message),
});
