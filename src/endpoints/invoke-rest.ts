import { z } from 'zod';
import { uuid } from '../../schema/common.ts';
import type { RequestContext } from '../trpc/context.ts';
import { fromOutput, type Meta } from '../trpc/init.ts';
import { invokeOutput } from '../../schema/endpoints.ts';
import type { InvokeResult } from './invoke.service.ts';

/** How invoke answers on REST: the data itself with 200, or `{ runId, status }` with 202; errors scraping-style. */
export const invokeRestMeta = {
  errorStyle: 'scraping',
  successStatus: fromOutput(invokeOutput, (output) => (output.status === 'completed' ? 200 : 202)),
  restBody: fromOutput(invokeOutput, (output) =>
    output.status === 'completed' ? output.data : { runId: output.runId, status: output.status },
  ),
  restResponses: {
    200: {
      description:
        'The extracted data itself (X-Cache says HIT or MISS, Age its age in seconds, X-Endpoint-Health `drifted` when the output no longer looks as it did)',
      body: z.unknown(),
    },
    202: {
      description: 'Still running: poll GET /v1/e/{slug}/results/{runId}',
      body: z.object({ runId: uuid, status: z.enum(['queued', 'running']) }),
    },
  },
} satisfies Partial<Meta>;

/** `X-Cache: HIT|MISS` and `Age` say where the data came from; `X-Endpoint-Health` whether the endpoint's output has drifted. */
export function exposeCacheHeaders(ctx: RequestContext, result: InvokeResult): InvokeResult & { data: unknown } {
  if (result.status === 'completed') {
    ctx.responseHeaders['X-Cache'] = result.cache;
    ctx.responseHeaders.Age = String(result.ageSeconds);
    ctx.responseHeaders['X-Endpoint-Health'] = result.health;
  }
  return { ...result, data: result.data ?? null };
}

/** REST passes the parameters flat (query string or body); the procedures take them as `params`. */
export const paramsFromRest = ({ slug, ...params }: Record<string, unknown>) => ({ slug, params });
