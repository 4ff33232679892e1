import { scrapeDataInput, scrapeDataOutput } from '../../schema/scrape-runs.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { getRunData } from './scrape-runs.service.ts';

type DataOutput = { runId: string; status: string; data?: unknown };

export const getScrapeDataProcedure = authorizedProcedure('read')
  .meta({
    errorStyle: 'scraping',
    successStatus: (output: DataOutput) => (output.status === 'completed' ? 200 : 202),
    otherSuccessStatuses: { 202: 'The run is not completed yet: `{ runId, status }`' },
    // REST answers with the extracted JSON itself, or `{ runId, status }` until it is there.
    restBody: (output: DataOutput) => (output.status === 'completed' ? output.data : { runId: output.runId, status: output.status }),
    openapi: {
      method: 'GET',
      path: '/api/{scraperId}/data/{runId}',
      tags: ['Scraping'],
      summary: 'The extracted data of a run',
      description: 'The extracted JSON with no envelope once the run is completed; 202 `{ runId, status }` before; 422 `run_failed` when it failed.',
    },
  })
  .input(scrapeDataInput)
  .output(scrapeDataOutput)
  .query(({ ctx, input }) => getRunData(ctx.principal.workspaceId, input.scraperId, input.runId));
