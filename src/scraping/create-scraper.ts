import { createScraperInput, scraperOutput } from '../../schema/scrapers.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createScraper } from './scrapers.service.ts';

export const createScraperProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['not_found'],
    openapi: {
      method: 'POST',
      path: '/api/scrapers',
      tags: ['Scraping'],
      summary: 'Create a scraper',
      description:
        'Selectors and the output schema are checked; the schema is derived from `extract` when not given. A `folder_id` must be a folder of the workspace (404 otherwise).',
    },
  })
  .input(createScraperInput)
  .output(scraperOutput)
  .mutation(async ({ ctx, input }) => ({ scraper: await createScraper(ctx.principal.workspaceId, input) }));
