import { listRepliesInput, listRepliesOutput } from '../../../schema/outreach/replies.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { listReplies } from './list-replies.service.ts';

export const listRepliesProcedure = apiProcedure
  .meta({
    permission: 'read',
    plan: 'paid',
    openapi: {
      method: 'GET',
      path: '/api/outreach/replies',
      tags: ['Outreach'],
      summary: 'Replies, bounces and automatic replies read from the inboxes, newest first',
      description:
        'Needs a paid plan (403 `plan_required` otherwise). On plans other than Pro and Business the sentiment fields are left out of each reply, and `counts.sentiment` and `sentiment` are absent.',
    },
  })
  .input(listRepliesInput)
  .output(listRepliesOutput)
  .query(async ({ ctx, input }) => listReplies(ctx.principal, input));
