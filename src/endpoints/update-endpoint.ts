import { endpointOutput, updateEndpointInput } from '../../schema/endpoints.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { updateEndpoint } from './endpoints.service.ts';

export const updateEndpointProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['conflict'],
    openapi: { method: 'PATCH', path: '/api/endpoints/{id}', tags: ['Published endpoints'], summary: 'Update a published endpoint' },
  })
  .input(updateEndpointInput)
  .output(endpointOutput)
  .mutation(async ({ ctx, input }) => ({ endpoint: await updateEndpoint(ctx.principal.workspaceId, input) }));
