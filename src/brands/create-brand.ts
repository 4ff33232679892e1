import { brandOutput, createBrandInput } from '../../schema/brands.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createWorkspaceBrand } from './brands.service.ts';

export const createBrandProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/api/brands',
      tags: ['Brands'],
      summary: 'Create a brand',
      description: 'Inboxes, sequences, campaigns and agent runs belong to a brand; a key can be bound to one.',
    },
  })
  .input(createBrandInput)
  .output(brandOutput)
  .mutation(async ({ ctx, input }) => ({ brand: await createWorkspaceBrand(ctx.principal.workspaceId, input.name) }));
