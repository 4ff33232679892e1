import { replyIdInput, replyThreadOutput } from '../../../schema/outreach/replies.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { replyConversation } from './conversation.service.ts';

export const getReplyProcedure = apiProcedure
  .meta({
    permission: 'read',
    plan: 'paid',
    openapi: {
      method: 'GET',
      path: '/api/outreach/replies/{id}',
      tags: ['Outreach'],
      summary: 'A reply and its conversation',
      description: 'Needs a paid plan.',
    },
  })
  .input(replyIdInput)
  .output(replyThreadOutput)
  .query(({ ctx, input }) => replyConversation(ctx.principal.workspaceId, input.id));
