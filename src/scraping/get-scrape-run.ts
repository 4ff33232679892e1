import { runIdInput, scrapeRun } from '../../schema/scrape-runs.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getRun, toRun } from './scrape-runs.service.ts';

export const getScrapeRunProcedure = apiProcedure
  .meta({
    permission: 'read',
    errorStyle: 'scraping',
    openapi: { method: 'GET', path: '/api/scrape/runs/{runId}', tags: ['Scraping'], summary: "A scrape run's status and counts" },
  })
  .input(runIdInput)
  .output(scrapeRun)
  .query(async ({ ctx, input }) => toRun(await getRun(ctx.principal.workspaceId, input.runId)));
