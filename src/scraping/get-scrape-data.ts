import { z } from 'zod';
import { uuid } from '../../schema/common.ts';
import { scrapeDataInput, scrapeDataOutput } from '../../schema/scrape-runs.ts';
import { fromOutput } from '../trpc/init.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getRunData } from './scrape-runs.service.ts';

/** A completed run's data, or what a cancelled one read before it stopped. */
const hasData = (output: { status: string }) => output.status === 'completed' || output.status === 'cancelled';

export const getScrapeDataProcedure = apiProcedure
  .meta({
    permission: 'read',
    errorStyle: 'scraping',
    successStatus: fromOutput(scrapeDataOutput, (output) => (hasData(output) ? 200 : 202)),
    errors: ['run_failed'],
    // REST answers with the extracted JSON itself, or `{ runId, status }` until it is there.
    restBody: fromOutput(scrapeDataOutput, (output) => (hasData(output) ? output.data : { runId: output.runId, status: output.status })),
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
        'The extracted JSON with no envelope once the run is completed (or what a cancelled run read); 202 `{ runId, status }` before; 422 `run_failed` when it failed, or was cancelled before its first page.',
    },
  })
  .input(scrapeDataInput)
  .output(scrapeDataOutput)
  .query(({ ctx, input }) => getRunData(ctx.principal.workspaceId, input.scraperId, input.runId));
