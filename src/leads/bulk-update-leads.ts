import { bulkUpdateLeadsInput, bulkUpdateLeadsOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { bulkUpdateLeads } from './leads.service.ts';

export const bulkUpdateLeadsProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['lead_limit'],
    openapi: { method: 'PATCH', path: '/api/leads', tags: ['Leads'], summary: 'Update the status or archive state of up to 500 leads' },
  })
  .input(bulkUpdateLeadsInput)
  .output(bulkUpdateLeadsOutput)
  .mutation(async ({ ctx, input }) => ({ ok: true, updated: await bulkUpdateLeads(ctx.principal.workspaceId, input) }));
