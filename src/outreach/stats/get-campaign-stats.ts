import { campaignStatsInput, campaignStatsOutput } from '../../../schema/outreach/stats.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { campaignStatsReport } from './campaign-stats-report.ts';

export const getCampaignStatsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/outreach/campaigns/{id}/stats',
      tags: ['Outreach'],
      summary: "A campaign's statistics: totals with rates, each step and variant, the last 14 days",
      description:
        "Totals and steps over the campaign's life; a reply, bounce, click, open or unsubscription counts for the step whose message it answers. Days are calendar days in the campaign's time zone.",
    },
  })
  .input(campaignStatsInput)
  .output(campaignStatsOutput)
  .query(({ ctx, input }) => campaignStatsReport(ctx.principal.workspaceId, input.id));
