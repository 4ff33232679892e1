import { scraperOutput, updateScraperInput } from '../../schema/scrapers.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { updateScraper } from './scrapers.service.ts';

export const updateScraperProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'PATCH',
      path: '/api/scrapers/{id}',
      tags: ['Scraping'],
      summary: 'Update a scraper',
      description: 'A derived output schema follows changes to `extract`; a given one stays until replaced or set to null.',
    },
  })
  .input(updateScraperInput)
  .output(scraperOutput)
  .mutation(async ({ ctx, input }) => ({ scraper: await updateScraper(ctx.principal.workspaceId, input) }));
