import { listScrapersInput, listScrapersOutput } from '../../schema/scrapers.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listScrapers } from './scrapers.service.ts';

export const listScrapersProcedure = apiProcedure
  .meta({
    permission: 'read',
    errors: ['not_found'],
    openapi: {
      method: 'GET',
      path: '/api/scrapers',
      tags: ['Scraping'],
      summary: 'List scrapers, newest first',
      description: 'Every scraper of the workspace, or with `folder_id` those filed in that folder.',
    },
  })
  .input(listScrapersInput)
  .output(listScrapersOutput)
  .query(async ({ ctx, input }) => ({ scrapers: await listScrapers(ctx.principal.workspaceId, input.folder_id) }));
