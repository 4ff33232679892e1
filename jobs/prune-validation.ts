import { z } from 'zod';
import { pruneValidationRecords } from '../src/validation/validation.service.ts';
import { defineJob } from './job-definition.ts';

/** Per-address results past their 30 days, and working state a dead run left, go (FerretDB has no TTL indexes). */
export const pruneValidationJob = defineJob({
  name: 'validation.prune',
  payload: z.object({}),
  retries: 0,
  every: '1 hour',
  handle: () => pruneValidationRecords(),
});
