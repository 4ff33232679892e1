import { noInput } from '../../schema/common.ts';
import { listFoldersOutput } from '../../schema/folders.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listFolders } from './folders.service.ts';

export const listFoldersProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/folders',
      tags: ['Scraping'],
      summary: 'List folders of scrapers, by name, with their scraper counts',
    },
  })
  .input(noInput)
  .output(listFoldersOutput)
  .query(async ({ ctx }) => ({ folders: await listFolders(ctx.principal.workspaceId) }));
