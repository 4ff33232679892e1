import { runIdInput, scrapeRun } from '../../schema/scrape-runs.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { getRun, toRun } from './scrape-runs.service.ts';

export const getScrapeRunProcedure = authorizedProcedure('read')
  .meta({ errorStyle: 'scraping', openapi: { method: 'GET', path: '/api/scrape/runs/{runId}', tags: ['Scraping'], summary: 'A scrape run\'s status and counts' } })
  .input(runIdInput)
  .output(scrapeRun)
  .query(async ({ ctx, input }) => toRun(await getRun(ctx.principal.workspaceId, input.runId)));
