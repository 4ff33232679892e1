import { inboxOutput, updateInboxInput } from '../../../schema/outreach/inboxes.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { updateInbox } from './inboxes.service.ts';

export const updateInboxProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'PATCH',
      path: '/api/outreach/inboxes/{id}',
      tags: ['Outreach'],
      summary: 'Change an inbox, or resume one the bounce guard paused',
      description:
        'Changed `smtp` or `imap` settings are verified by logging in, unless `verify` is false. `paused: false` resumes sending.',
    },
  })
  .input(updateInboxInput)
  .output(inboxOutput)
  .mutation(async ({ ctx, input }) => ({ inbox: await updateInbox(ctx.principal.workspaceId, input) }));
