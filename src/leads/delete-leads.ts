import { deleteLeadsInput, deleteLeadsOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteLeads } from './leads.service.ts';

export const deleteLeadsProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'DELETE',
      path: '/api/leads',
      tags: ['Leads'],
      summary: 'Delete up to 500 leads permanently',
      description: 'The ids go in a JSON body.',
    },
  })
  .input(deleteLeadsInput)
  .output(deleteLeadsOutput)
  .mutation(async ({ ctx, input }) => ({ ok: true, deleted: await deleteLeads(ctx.principal.workspaceId, input.ids) }));
