import { campaignIdInput, campaignOutput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { getCampaignDoc, toCampaign } from './campaigns.service.ts';

export const getCampaignProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/outreach/campaigns/{id}', tags: ['Outreach'], summary: 'A campaign with its progress' },
  })
  .input(campaignIdInput)
  .output(campaignOutput)
  .query(async ({ ctx, input }) => ({ campaign: await toCampaign(await getCampaignDoc(ctx.principal.workspaceId, input.id)) }));
