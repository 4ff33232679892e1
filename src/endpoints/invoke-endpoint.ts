import { invokeInput, invokeOutput } from '../../schema/endpoints.ts';
import type { Meta } from '../trpc/init.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { exposeCacheHeaders, invokeRestMeta, paramsFromRest } from './invoke-rest.ts';
import { invokeEndpoint } from './invoke.service.ts';

/** A call of the other method (405), a URL the template filled that may not be scraped, no credits for a page, a run that failed while waited for. */
const invokeErrors = ['method_not_allowed', 'url_not_allowed', 'insufficient_credits', 'run_failed'] satisfies Meta['errors'];

const description =
  'A fresh cached result comes back at once and spends nothing (X-Cache: HIT); otherwise the scrape runs inline for up to about 110 s (X-Cache: MISS); past that, or in async mode, 202 with the run to poll.';

export const invokeEndpointProcedure = apiProcedure
  .meta({
    permission: 'endpoints:invoke',
    ...invokeRestMeta,
    errors: invokeErrors,
    restInput: paramsFromRest,
    // A GET that runs a scrape and charges for it.
    changesData: true,
    // Its query parameters are each endpoint's own: /openapi.json documents them per endpoint (src/http/surfaces/openapi.ts).
    openapi: {
      method: 'GET',
      path: '/v1/e/{slug}',
      tags: ['Published endpoints'],
      summary: 'Call a GET endpoint',
      description,
      enabled: false,
    },
  })
  .input(invokeInput)
  .output(invokeOutput)
  .query(async ({ ctx, input }) =>
    exposeCacheHeaders(ctx, await invokeEndpoint(ctx.principal.workspaceId, input.slug, input.params, 'GET')),
  );

export const invokePostEndpointProcedure = apiProcedure
  .meta({
    permission: 'endpoints:invoke',
    ...invokeRestMeta,
    errors: invokeErrors,
    restInput: paramsFromRest,
    openapi: { method: 'POST', path: '/v1/e/{slug}', tags: ['Published endpoints'], summary: 'Call a POST endpoint', description },
  })
  .input(invokeInput)
  .output(invokeOutput)
  .mutation(async ({ ctx, input }) =>
    exposeCacheHeaders(ctx, await invokeEndpoint(ctx.principal.workspaceId, input.slug, input.params, 'POST')),
  );
