import { importLeadsInput, importLeadsOutput } from '../../schema/leads.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { importLeads } from './lead-import.service.ts';

export const importLeadsProcedure = authorizedProcedure('write')
  .meta({
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/api/leads',
      tags: ['Leads'],
      summary: 'Import up to 500 leads',
      description: 'Dedupes within the workspace by email (case-insensitive), then LinkedIn URL. Refuses the whole call with lead_limit when the plan cap would be exceeded.',
    },
  })
  .input(importLeadsInput)
  .output(importLeadsOutput)
  .mutation(({ ctx, input }) => importLeads(ctx.principal.workspaceId, input));
