import { deleteScraperOutput, scraperIdInput } from '../../schema/scrapers.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { deleteScraper } from './scrapers.service.ts';

export const deleteScraperProcedure = authorizedProcedure('write')
  .meta({ openapi: { method: 'DELETE', path: '/api/scrapers/{id}', tags: ['Scraping'], summary: 'Delete a scraper' } })
  .input(scraperIdInput)
  .output(deleteScraperOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteScraper(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
