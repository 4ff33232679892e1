import { removeLeadsInput, removeLeadsOutput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { removeLeads } from './campaign-leads.service.ts';

export const removeLeadsProcedure = apiProcedure
  .meta({
    permission: 'outreach:send',
    plan: 'paid',
    planError: 'outreach_locked',
    openapi: {
      method: 'POST',
      path: '/api/outreach/campaigns/{id}/remove',
      tags: ['Outreach'],
      summary: 'Remove leads from a campaign',
      description: 'Needs a paid plan.',
    },
  })
  .input(removeLeadsInput)
  .output(removeLeadsOutput)
  .mutation(({ ctx, input }) => removeLeads(ctx.principal.workspaceId, input.id, input.lead_ids));
