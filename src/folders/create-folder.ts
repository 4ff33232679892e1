import { createFolderInput, folderOutput } from '../../schema/folders.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createFolder } from './folders.service.ts';

export const createFolderProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['conflict'],
    openapi: {
      method: 'POST',
      path: '/api/folders',
      tags: ['Scraping'],
      summary: 'Create a folder of scrapers',
      description: 'Names are unique in the workspace (409 naming `name` otherwise).',
    },
  })
  .input(createFolderInput)
  .output(folderOutput)
  .mutation(async ({ ctx, input }) => ({ folder: await createFolder(ctx.principal.workspaceId, input.name) }));
