import { deleteLeadsInput, deleteLeadsOutput } from '../../schema/leads.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { deleteLeads } from './leads.service.ts';

export const deleteLeadsProcedure = authorizedProcedure('write')
  .meta({ openapi: { method: 'DELETE', path: '/api/leads', tags: ['Leads'], summary: 'Delete up to 500 leads permanently', description: 'The ids go in a JSON body.' } })
  .input(deleteLeadsInput)
  .output(deleteLeadsOutput)
  .mutation(async ({ ctx, input }) => ({ ok: true, deleted: await deleteLeads(ctx.principal.workspaceId, input.ids) }));
