import { moveLeadsInput, moveLeadsOutput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { moveLeads } from './campaign-leads.service.ts';

export const moveLeadsProcedure = apiProcedure
  .meta({
    permission: 'outreach:send',
    plan: 'paid',
    planError: 'outreach_locked',
    errors: ['conflict'],
    openapi: {
      method: 'POST',
      path: '/api/outreach/campaigns/{id}/move',
      tags: ['Outreach'],
      summary: 'Move leads to another campaign',
      description: 'Needs a paid plan.',
    },
  })
  .input(moveLeadsInput)
  .output(moveLeadsOutput)
  .mutation(({ ctx, input }) => moveLeads(ctx.principal.workspaceId, input.id, input.lead_ids, input.to_campaign_id));
