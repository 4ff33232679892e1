import { endpointResultInput, invokeOutput } from '../../schema/endpoints.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { exposeCacheHeaders, invokeRestMeta } from './invoke-rest.ts';
import { endpointResult } from './invoke.service.ts';

export const getEndpointResultProcedure = apiProcedure
  .meta({
    permission: 'endpoints:invoke',
    ...invokeRestMeta,
    errors: ['run_failed'],
    openapi: {
      method: 'GET',
      path: '/v1/e/{slug}/results/{runId}',
      tags: ['Published endpoints'],
      summary: 'The result of an endpoint call answered with 202',
    },
  })
  .input(endpointResultInput)
  .output(invokeOutput)
  .query(async ({ ctx, input }) => exposeCacheHeaders(ctx, await endpointResult(ctx.principal.workspaceId, input.slug, input.runId)));
