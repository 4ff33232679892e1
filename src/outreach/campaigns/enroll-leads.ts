import { enrollInput, enrollOutput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { enrollLeads } from './enrollments.service.ts';

export const enrollLeadsProcedure = apiProcedure
  .meta({
    permission: 'outreach:send',
    plan: 'paid',
    planError: 'outreach_locked',
    errors: ['conflict'],
    openapi: {
      method: 'POST',
      path: '/api/outreach/campaigns/{id}/enroll',
      tags: ['Outreach'],
      summary: 'Enroll leads in a campaign',
      description:
        'Each lead once per campaign. Leads on the do-not-contact list, unsubscribed, archived or disqualified, without a usable email, or already enrolled are skipped and counted by reason. Needs a paid plan.',
    },
  })
  .input(enrollInput)
  .output(enrollOutput)
  .mutation(async ({ ctx, input }) => {
    const { enrolled, skipped } = await enrollLeads(ctx.principal.workspaceId, input.id, input.lead_ids, {
      skipIfInOtherCampaign: input.skip_if_in_other_campaign,
    });
    return { enrolled, skipped };
  });
