import { endpointIdInput, endpointOutput } from '../../schema/endpoints.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getEndpointDoc, toEndpoint } from './endpoints.service.ts';

export const getEndpointProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/endpoints/{id}', tags: ['Published endpoints'], summary: 'Get a published endpoint' },
  })
  .input(endpointIdInput)
  .output(endpointOutput)
  .query(async ({ ctx, input }) => ({ endpoint: await toEndpoint(await getEndpointDoc(ctx.principal.workspaceId, input.id)) }));
