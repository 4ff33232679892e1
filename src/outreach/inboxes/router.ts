import { router } from '../../trpc/init.ts';
import { createInboxProcedure } from './create-inbox.ts';
import { deleteInboxProcedure } from './delete-inbox.ts';
import { listInboxesProcedure } from './list-inboxes.ts';
import { updateInboxProcedure } from './update-inbox.ts';

export const inboxesRouter = router({
  create: createInboxProcedure,
  list: listInboxesProcedure,
  update: updateInboxProcedure,
  delete: deleteInboxProcedure,
});
