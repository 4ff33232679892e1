import { listValidationResultsInput, listValidationResultsOutput } from '../../schema/validation.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listValidationResults } from './validation.service.ts';

export const listValidationResultsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/leads/validate/{id}/results',
      tags: ['Leads'],
      summary: 'What each address of a validation job came to',
      description: "One result per address, in the order they were concluded, with the reason and the mail server's words; kept 30 days.",
    },
  })
  .input(listValidationResultsInput)
  .output(listValidationResultsOutput)
  .query(({ ctx, input }) => listValidationResults(ctx.principal.workspaceId, input));
