import { z } from 'zod';
import { dateTime, nullableDateTime, uuid } from './common.ts';

export const validationJob = z
  .object({
    id: uuid,
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']).describe('Job status.'),
    source: z.enum(['manual', 'import', 'agent']).describe('What started the job.'),
    total: z.int().describe('Addresses to check.'),
    processed: z.int().describe('Addresses checked so far.'),
    billable: z.int().describe('Checks that spend a credit.'),
    credits_charged: z.int().describe('Validation credits spent.'),
    counts: z.record(z.string(), z.int()).describe('Results so far, by email_status.'),
    error: z.string().nullable().describe('Why the job failed, if it did.'),
    created_at: dateTime,
    finished_at: nullableDateTime,
  })
  .meta({ id: 'ValidationJob' });

export const listValidationJobsOutput = z.object({ jobs: z.array(validationJob).describe('Newest first.') });
