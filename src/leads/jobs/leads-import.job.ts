import { z } from 'zod';
import { settings } from '../../config.ts';
import { defineJobContract } from '../../jobs/job-contract.ts';

/**
 * Stores a CSV import's rows as leads, from where it stands (a start after a dead worker goes on after the last
 * batch recorded). Three starts at most, then the import fails.
 */
export const leadsImportJob = defineJobContract({
  name: 'leads.import',
  payload: z.object({ importId: z.uuid() }),
  retries: 2,
  lockLifetimeMs: () => settings().IMPORT_LOCK_LIFETIME_MS,
});
