import { validationJobIdInput, validationJobOutput } from '../../schema/validation.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { cancelValidationJob } from './validation.service.ts';

export const cancelValidationJobProcedure = apiProcedure
  .meta({
    permission: 'leads:validate',
    errors: ['conflict'],
    openapi: {
      method: 'POST',
      path: '/api/leads/validate/{id}/cancel',
      tags: ['Leads'],
      summary: 'Cancel an email validation job',
      description:
        'A queued or running job stops within about a second; the results it concluded (and charged) stay. A job that has ended is 409.',
    },
  })
  .input(validationJobIdInput)
  .output(validationJobOutput)
  .mutation(async ({ ctx, input }) => ({ job: await cancelValidationJob(ctx.principal.workspaceId, input.id) }));
