import { deleteFolderOutput, folderIdInput } from '../../schema/folders.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteFolder } from './folders.service.ts';

export const deleteFolderProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'DELETE',
      path: '/api/folders/{id}',
      tags: ['Scraping'],
      summary: 'Delete a folder of scrapers',
      description: 'Its scrapers stay, filed in no folder.',
    },
  })
  .input(folderIdInput)
  .output(deleteFolderOutput)
  .mutation(async ({ ctx, input }) => {
    const { scrapersUnfiled } = await deleteFolder(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id, scrapers_unfiled: scrapersUnfiled };
  });
