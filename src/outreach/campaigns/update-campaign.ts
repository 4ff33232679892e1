import { campaignOutput, updateCampaignInput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { updateCampaign } from './campaigns.service.ts';

export const updateCampaignProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['not_found', 'conflict'],
    openapi: {
      method: 'PATCH',
      path: '/api/outreach/campaigns',
      tags: ['Outreach'],
      summary: 'Update a campaign: activate, pause, archive, rename, reschedule',
      description:
        '`status: active` starts or resumes, `paused` stops further sends without losing progress, `archived` ends it. A move its status does not allow (e.g. archived to active) is 409.',
    },
  })
  .input(updateCampaignInput)
  .output(campaignOutput)
  .mutation(async ({ ctx, input }) => ({ campaign: await updateCampaign(ctx.principal.workspaceId, input) }));
