import { z } from 'zod';
import { uuid } from '../../schema/common.ts';
import { scrapeDataInput, scrapeDataOutput } from '../../schema/scrape-runs.ts';
import { fieldError } from '../errors/field-error.ts';
import { fromOutput, type Meta } from '../trpc/init.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getRunData } from './scrape-runs.service.ts';

/** A completed run's data, or what a cancelled one read before it stopped. */
const hasData = (output: { status: string }) => output.status === 'completed' || output.status === 'cancelled';

/** Who may read a run's data, and how errors answer: the JSON here and the files (run-data-files.route.ts) alike. */
export const scrapeDataAccess = { permission: 'read', errorStyle: 'scraping' } as const satisfies Partial<Meta>;

export const getScrapeDataProcedure = apiProcedure
  .meta({
    ...scrapeDataAccess,
    successStatus: fromOutput(scrapeDataOutput, (output) => (hasData(output) ? 200 : 202)),
    errors: ['run_failed'],
    // REST answers with the extracted JSON itself, or `{ runId, status }` until it is there.
    restBody: fromOutput(scrapeDataOutput, (output) => (hasData(output) ? output.data : { runId: output.runId, status: output.status })),
    // The file forms of the 200 answer, served by run-data-files.route.ts beside the REST bridge.
    restMediaTypes: {
      'text/csv': { schema: { type: 'string', description: "format=csv: the scraper's fields as columns, one row an item (RFC 4180)." } },
      'application/jsonl': { schema: { type: 'string', description: 'format=jsonl: one item a line, as JSON.' } },
    },
    restResponses: {
      200: { description: "The extracted JSON itself, as the scraper's output schema describes it", body: z.unknown() },
      202: { description: 'The run is not completed yet', body: z.object({ runId: uuid, status: z.enum(['queued', 'running']) }) },
    },
    openapi: {
      method: 'GET',
      path: '/api/{scraperId}/data/{runId}',
      tags: ['Scraping'],
      summary: 'The extracted data of a run',
      description:
        'The extracted JSON with no envelope once the run is completed (or what a cancelled run read), or with `format=csv` or `jsonl` a streamed file; 202 `{ runId, status }` before; 422 `run_failed` when it failed, or was cancelled before its first page.',
    },
  })
  .input(scrapeDataInput)
  .output(scrapeDataOutput)
  .query(({ ctx, input }) => {
    // REST answers the file formats before the bridge; GraphQL and tRPC have no way to stream a file.
    if (input.format !== 'json')
      throw fieldError({
        field: 'format',
        problem: `${input.format} is a REST download: GET /api/{scraperId}/data/{runId}?format=${input.format}`,
      });
    return getRunData(ctx.principal.workspaceId, input.scraperId, input.runId);
  });
