import { router } from '../trpc/init.ts';
import { createBrandProcedure } from './create-brand.ts';
import { listBrandsProcedure } from './list-brands.ts';

export const brandsRouter = router({
  create: createBrandProcedure,
  list: listBrandsProcedure,
});
