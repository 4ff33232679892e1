import { invokeInput, invokeOutput } from '../../schema/endpoints.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { exposeCacheHeaders, invokeRestMeta, paramsFromRest } from './invoke-rest.ts';
import { invokeEndpoint } from './invoke.service.ts';

const description =
  'A fresh cached result comes back at once and spends nothing (X-Cache: HIT); otherwise the scrape runs inline for up to about 110 s (X-Cache: MISS); past that, or in async mode, 202 with the run to poll.';

export const invokeEndpointProcedure = authorizedProcedure('endpoints:invoke')
  .meta({
    ...invokeRestMeta,
    restInput: paramsFromRest,
    // Its query parameters are each endpoint's own: /openapi.json documents them per endpoint (src/http/openapi.ts).
    openapi: { method: 'GET', path: '/v1/e/{slug}', tags: ['Published endpoints'], summary: 'Call a GET endpoint', description, enabled: false },
  })
  .input(invokeInput)
  .output(invokeOutput)
  .query(async ({ ctx, input }) => exposeCacheHeaders(ctx, await invokeEndpoint(ctx.principal.workspaceId, input.slug, input.params, 'GET')));

export const invokePostEndpointProcedure = authorizedProcedure('endpoints:invoke')
  .meta({ ...invokeRestMeta, restInput: paramsFromRest, openapi: { method: 'POST', path: '/v1/e/{slug}', tags: ['Published endpoints'], summary: 'Call a POST endpoint', description } })
  .input(invokeInput)
  .output(invokeOutput)
  .mutation(async ({ ctx, input }) => exposeCacheHeaders(ctx, await invokeEndpoint(ctx.principal.workspaceId, input.slug, input.params, 'POST')));
