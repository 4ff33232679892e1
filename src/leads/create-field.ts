import { createFieldInput, createFieldOutput } from '../../schema/leads.ts';
import { fromOutput } from '../trpc/init.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { declareField } from './lead-fields.service.ts';

export const createFieldProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: fromOutput(createFieldOutput, (output) => (output.created ? 201 : 200)),
    restResponses: {
      201: { description: 'The column was created.', body: createFieldOutput },
      200: { description: 'The column existed: returned unchanged, with `created: false`.', body: createFieldOutput },
    },
    openapi: {
      method: 'POST',
      path: '/api/leads/fields',
      tags: ['Leads'],
      summary: 'Declare a custom lead column',
      description:
        'The key is derived from the label. An existing column is returned unchanged with created: false (status 200); a new one with 201.',
    },
  })
  .input(createFieldInput)
  .output(createFieldOutput)
  .mutation(({ ctx, input }) => declareField(ctx.principal.workspaceId, input));
