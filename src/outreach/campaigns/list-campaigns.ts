import { listCampaignsInput, listCampaignsOutput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { listCampaigns } from './campaigns.service.ts';

export const listCampaignsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/outreach/campaigns',
      tags: ['Outreach'],
      summary: 'List campaigns with their progress, newest first',
    },
  })
  .input(listCampaignsInput)
  .output(listCampaignsOutput)
  .query(async ({ ctx, input }) => ({ campaigns: await listCampaigns(ctx.principal, input.brand) }));
