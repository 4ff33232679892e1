import { importLeadsInput, importLeadsOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { importLeads } from './lead-import.service.ts';

export const importLeadsProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['not_found', 'lead_limit'],
    openapi: {
      method: 'POST',
      path: '/api/leads',
      tags: ['Leads'],
      summary: 'Import up to 500 leads',
      description:
        'Dedupes within the workspace by email (case-insensitive), then LinkedIn URL. Refuses the whole call with lead_limit when the plan cap would be exceeded.',
    },
  })
  .input(importLeadsInput)
  .output(importLeadsOutput)
  .mutation(({ ctx, input }) => importLeads(ctx.principal.workspaceId, input, { brandId: ctx.principal.brandId }));
