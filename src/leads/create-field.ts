import { createFieldInput, createFieldOutput } from '../../schema/leads.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { declareField } from './lead-fields.service.ts';

export const createFieldProcedure = authorizedProcedure('write')
  .meta({
    successStatus: (output: { created: boolean }) => (output.created ? 201 : 200),
    otherSuccessStatuses: { 201: 'Created' },
    openapi: {
      method: 'POST',
      path: '/api/leads/fields',
      tags: ['Leads'],
      summary: 'Declare a custom lead column',
      description: 'The key is derived from the label. An existing column is returned unchanged with created: false (status 200); a new one with 201.',
    },
  })
  .input(createFieldInput)
  .output(createFieldOutput)
  .mutation(({ ctx, input }) => declareField(ctx.principal.workspaceId, input));
