import { deleteEndpointOutput, endpointIdInput } from '../../schema/endpoints.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteEndpoint } from './endpoints.service.ts';

export const deleteEndpointProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: { method: 'DELETE', path: '/api/endpoints/{id}', tags: ['Published endpoints'], summary: 'Delete a published endpoint' },
  })
  .input(endpointIdInput)
  .output(deleteEndpointOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteEndpoint(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
