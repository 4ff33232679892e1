import { campaignOutput, createCampaignInput } from '../../../schema/outreach/campaigns.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { createCampaign } from './campaigns.service.ts';

export const createCampaignProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['not_found'],
    openapi: {
      method: 'POST',
      path: '/api/outreach/campaigns',
      tags: ['Outreach'],
      summary: 'Create a campaign (in draft)',
      description:
        'Sends a sequence from one or more inboxes, in rotation, on a schedule. Activate it with PATCH status `active`; enroll leads with POST /api/outreach/campaigns/{id}/enroll.',
    },
  })
  .input(createCampaignInput)
  .output(campaignOutput)
  .mutation(async ({ ctx, input }) => ({ campaign: await createCampaign(ctx.principal, input) }));
