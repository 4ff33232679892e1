import { noInput } from '../../schema/common.ts';
import { listScrapersOutput } from '../../schema/scrapers.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listScrapers } from './scrapers.service.ts';

export const listScrapersProcedure = apiProcedure
  .meta({ permission: 'read', openapi: { method: 'GET', path: '/api/scrapers', tags: ['Scraping'], summary: 'List scrapers, newest first' } })
  .input(noInput)
  .output(listScrapersOutput)
  .query(async ({ ctx }) => ({ scrapers: await listScrapers(ctx.principal.workspaceId) }));
