import { leadOutput, updateLeadInput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { updateLead } from './leads.service.ts';

export const updateLeadProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['conflict', 'lead_limit'],
    openapi: {
      method: 'PATCH',
      path: '/api/leads/{id}',
      tags: ['Leads'],
      summary: 'Update one lead',
      description: 'Set a core or custom field, the status, the score, or the archive flag.',
    },
  })
  .input(updateLeadInput)
  .output(leadOutput)
  .mutation(async ({ ctx, input }) => ({ lead: await updateLead(ctx.principal.workspaceId, input) }));
