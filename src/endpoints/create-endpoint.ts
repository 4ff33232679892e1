import { createEndpointInput, endpointOutput } from '../../schema/endpoints.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createEndpoint } from './endpoints.service.ts';

export const createEndpointProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['not_found', 'conflict'],
    openapi: {
      method: 'POST',
      path: '/api/endpoints',
      tags: ['Published endpoints'],
      summary: 'Publish a scraper as a typed endpoint under /v1/e/{slug}',
      description: 'A slug already used in the workspace is 409.',
    },
  })
  .input(createEndpointInput)
  .output(endpointOutput)
  .mutation(async ({ ctx, input }) => ({ endpoint: await createEndpoint(ctx.principal.workspaceId, input) }));
