import { deleteScraperOutput, scraperIdInput } from '../../schema/scrapers.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteScraper } from './scraper-deletion.service.ts';

export const deleteScraperProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['conflict'],
    openapi: {
      method: 'DELETE',
      path: '/api/scrapers/{id}',
      tags: ['Scraping'],
      summary: 'Delete a scraper with its runs and results',
      description:
        '409 `conflict` (with `endpoints`, their slugs) while published endpoints use it. A run still working stops at its next page.',
    },
  })
  .input(scraperIdInput)
  .output(deleteScraperOutput)
  .mutation(async ({ ctx, input }) => {
    const { runsDeleted } = await deleteScraper(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id, runs_deleted: runsDeleted };
  });
