import { validationJobIdInput, validationJobOutput } from '../../schema/validation.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getValidationJob } from './validation.service.ts';

export const getValidationJobProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/leads/validate/{id}', tags: ['Leads'], summary: 'An email validation job and its progress' },
  })
  .input(validationJobIdInput)
  .output(validationJobOutput)
  .query(async ({ ctx, input }) => ({ job: await getValidationJob(ctx.principal.workspaceId, input.id) }));
