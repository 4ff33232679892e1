import { addSuppressionsInput, addSuppressionsOutput } from '../../../schema/outreach/suppressions.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { addSuppressions } from './suppressions.service.ts';

export const addSuppressionsProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/api/outreach/suppressions',
      tags: ['Outreach'],
      summary: 'Add addresses or whole domains to the do-not-contact list',
      description:
        'Up to 1,000 entries a call, case-insensitive; `@domain` covers every address at the domain. Entries already on the list keep their reason and count as `existing`.',
    },
  })
  .input(addSuppressionsInput)
  .output(addSuppressionsOutput)
  .mutation(({ ctx, input }) => addSuppressions(ctx.principal.workspaceId, input.entries, input.reason, 'api'));
