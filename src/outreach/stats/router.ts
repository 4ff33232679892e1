import { router } from '../../trpc/init.ts';
import { getCampaignStatsProcedure } from './get-campaign-stats.ts';
import { getStatsProcedure } from './get-stats.ts';

export const statsRouter = router({
  get: getStatsProcedure,
  campaign: getCampaignStatsProcedure,
});
