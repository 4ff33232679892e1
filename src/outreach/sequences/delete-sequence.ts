import { deleteSequenceOutput, sequenceIdInput } from '../../../schema/outreach/sequences.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { deleteSequence } from './sequences.service.ts';

export const deleteSequenceProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['conflict'],
    openapi: {
      method: 'DELETE',
      path: '/api/outreach/sequences/{id}',
      tags: ['Outreach'],
      summary: 'Delete a sequence',
      description: '409 conflict, naming the campaigns, while an active campaign uses the sequence.',
    },
  })
  .input(sequenceIdInput)
  .output(deleteSequenceOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteSequence(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
