import { listBrandsOutput } from '../../schema/brands.ts';
import { noInput } from '../../schema/common.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listBrands } from './brands.service.ts';

export const listBrandsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/brands', tags: ['Brands'], summary: "List the workspace's brands, the default first" },
  })
  .input(noInput)
  .output(listBrandsOutput)
  .query(async ({ ctx }) => ({ brands: await listBrands(ctx.principal.workspaceId) }));
