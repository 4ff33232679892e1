import { router } from '../trpc/init.ts';
import { createFolderProcedure } from './create-folder.ts';
import { deleteFolderProcedure } from './delete-folder.ts';
import { listFoldersProcedure } from './list-folders.ts';
import { updateFolderProcedure } from './update-folder.ts';

export const foldersRouter = router({
  create: createFolderProcedure,
  list: listFoldersProcedure,
  update: updateFolderProcedure,
  delete: deleteFolderProcedure,
});
