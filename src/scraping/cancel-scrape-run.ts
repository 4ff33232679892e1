import { cancelScrapeRunOutput, runIdInput } from '../../schema/scrape-runs.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { cancelRun } from './run-cancel.service.ts';

export const cancelScrapeRunProcedure = apiProcedure
  .meta({
    permission: 'scraper',
    errors: ['conflict'],
    openapi: {
      method: 'POST',
      path: '/api/scrape/runs/{runId}/cancel',
      tags: ['Scraping'],
      summary: 'Cancel a scrape run',
      description:
        'The run stops within seconds (a page in flight may finish, unpaid) and answers `cancelled`: the items read so far stay readable, and only the pages fetched are charged. A run that has ended is 409 `conflict`.',
    },
  })
  .input(runIdInput)
  .output(cancelScrapeRunOutput)
  .mutation(async ({ ctx, input }) => ({ run: await cancelRun(ctx.principal.workspaceId, input.runId) }));
