import { folderOutput, updateFolderInput } from '../../schema/folders.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { renameFolder } from './folders.service.ts';

export const updateFolderProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['conflict'],
    openapi: {
      method: 'PATCH',
      path: '/api/folders/{id}',
      tags: ['Scraping'],
      summary: 'Rename a folder of scrapers',
      description: 'Names are unique in the workspace (409 naming `name` otherwise).',
    },
  })
  .input(updateFolderInput)
  .output(folderOutput)
  .mutation(async ({ ctx, input }) => ({ folder: await renameFolder(ctx.principal.workspaceId, input.id, input.name) }));
