import { router } from '../../trpc/init.ts';
import { getStatsProcedure } from './get-stats.ts';

export const statsRouter = router({
  get: getStatsProcedure,
});
