import { router } from '../trpc/init.ts';
import { getUsageProcedure } from './get-usage.ts';

export const usageRouter = router({
  get: getUsageProcedure,
});
