import { listScraperRunsInput, listScraperRunsOutput } from '../../schema/scrape-runs.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listScraperRuns } from './scrape-runs.service.ts';

export const listScraperRunsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/scrapers/{id}/runs',
      tags: ['Scraping'],
      summary: "List a scraper's runs, newest first",
      description: 'At most `limit` runs (50 by default, 100 at most), optionally only those in one `status`; `total` counts every match.',
    },
  })
  .input(listScraperRunsInput)
  .output(listScraperRunsOutput)
  .query(({ ctx, input }) => listScraperRuns(ctx.principal.workspaceId, input));
