import { removeSuppressionsInput, removeSuppressionsOutput } from '../../../schema/outreach/suppressions.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { removeSuppressions } from './suppressions.service.ts';

export const removeSuppressionsProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'DELETE',
      path: '/api/outreach/suppressions',
      tags: ['Outreach'],
      summary: 'Remove entries from the do-not-contact list',
      description: 'By `ids`, or by `emails` written as they were added (`@domain` for a whole-domain entry), in a JSON body.',
    },
  })
  .input(removeSuppressionsInput)
  .output(removeSuppressionsOutput)
  .mutation(async ({ ctx, input }) => ({ deleted: await removeSuppressions(ctx.principal.workspaceId, input) }));
