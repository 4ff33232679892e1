import { noInput } from '../../schema/common.ts';
import { listValidationJobsOutput } from '../../schema/validation.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listValidationJobs } from './validation.service.ts';

export const listValidationJobsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/leads/validate', tags: ['Leads'], summary: 'Email validation jobs, newest first' },
  })
  .input(noInput)
  .output(listValidationJobsOutput)
  .query(async ({ ctx }) => ({ jobs: await listValidationJobs(ctx.principal.workspaceId) }));
