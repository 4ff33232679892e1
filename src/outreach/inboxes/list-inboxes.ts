import { listInboxesInput, listInboxesOutput } from '../../../schema/outreach/inboxes.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { listInboxes } from './inboxes.service.ts';

export const listInboxesProcedure = apiProcedure
  .meta({
    permission: 'read',
    errors: ['not_found'],
    openapi: {
      method: 'GET',
      path: '/api/outreach/inboxes',
      tags: ['Outreach'],
      summary: 'List sending inboxes with their caps, figures and health',
      description:
        "The credential's brand by default; `brand=<id>` narrows to another (404 naming `brand` when not the workspace's), `brand=all` widens to the workspace.",
    },
  })
  .input(listInboxesInput)
  .output(listInboxesOutput)
  .query(async ({ ctx, input }) => ({ inboxes: await listInboxes(ctx.principal, input.brand) }));
