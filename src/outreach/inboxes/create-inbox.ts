import { createInboxInput, inboxOutput } from '../../../schema/outreach/inboxes.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { createInbox } from './inboxes.service.ts';

export const createInboxProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['not_found'],
    openapi: {
      method: 'POST',
      path: '/api/outreach/inboxes',
      tags: ['Outreach'],
      summary: 'Add a sending inbox',
      description:
        "Logs in to the SMTP server (and the IMAP server, when given) before saving unless `verify` is false: a failure is 400 naming `smtp` or `imap` with the server's answer. Passwords are stored encrypted and never returned. 404 naming `brand_id` for a brand the workspace does not have.",
    },
  })
  .input(createInboxInput)
  .output(inboxOutput)
  .mutation(async ({ ctx, input }) => ({ inbox: await createInbox(ctx.principal, input) }));
