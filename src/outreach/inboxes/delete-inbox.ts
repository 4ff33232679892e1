import { deleteInboxOutput, inboxIdInput } from '../../../schema/outreach/inboxes.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { deleteInbox } from './inboxes.service.ts';

export const deleteInboxProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['conflict'],
    openapi: {
      method: 'DELETE',
      path: '/api/outreach/inboxes/{id}',
      tags: ['Outreach'],
      summary: 'Delete an inbox',
      description: '409 `conflict` naming the campaigns while an active campaign sends from it.',
    },
  })
  .input(inboxIdInput)
  .output(deleteInboxOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteInbox(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
