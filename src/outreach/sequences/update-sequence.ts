import { sequenceOutput, updateSequenceInput } from '../../../schema/outreach/sequences.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { updateSequence } from './sequences.service.ts';

export const updateSequenceProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['plan_required'],
    openapi: {
      method: 'PATCH',
      path: '/api/outreach/sequences/{id}',
      tags: ['Outreach'],
      summary: 'Update a sequence',
      description:
        'Same fields and rules as create; `steps` replaces every step. Active campaigns using the sequence send the new steps to leads that have not had them yet (the engine reads the sequence when it sends).',
    },
  })
  .input(updateSequenceInput)
  .output(sequenceOutput)
  .mutation(async ({ ctx, input }) => ({ sequence: await updateSequence(ctx.principal.workspaceId, input) }));
