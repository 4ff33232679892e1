import { router } from '../../trpc/init.ts';
import { createCampaignProcedure } from './create-campaign.ts';
import { enrollLeadsProcedure } from './enroll-leads.ts';
import { getCampaignProcedure } from './get-campaign.ts';
import { listCampaignsProcedure } from './list-campaigns.ts';
import { updateCampaignProcedure } from './update-campaign.ts';

export const campaignsRouter = router({
  create: createCampaignProcedure,
  list: listCampaignsProcedure,
  get: getCampaignProcedure,
  update: updateCampaignProcedure,
  enroll: enrollLeadsProcedure,
});
