import { scraperIdInput, scraperOutput } from '../../schema/scrapers.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getScraperDoc } from './scraper-lookup.ts';
import { toScraper } from './scrapers.service.ts';

export const getScraperProcedure = apiProcedure
  .meta({ permission: 'read', openapi: { method: 'GET', path: '/api/scrapers/{id}', tags: ['Scraping'], summary: 'Get a scraper' } })
  .input(scraperIdInput)
  .output(scraperOutput)
  .query(async ({ ctx, input }) => ({ scraper: toScraper(await getScraperDoc(ctx.principal.workspaceId, input.id)) }));
