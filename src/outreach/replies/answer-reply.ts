import { answerReplyInput, answerReplyOutput } from '../../../schema/outreach/replies.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { answerReply } from './conversation.service.ts';

export const answerReplyProcedure = apiProcedure
  .meta({
    permission: 'outreach:send',
    plan: 'paid',
    planError: 'outreach_locked',
    successStatus: 201,
    errors: [
      'not_found',
      'conflict',
      'suppressed',
      'invalid_email',
      'inbox_paused',
      'inbox_cap_reached',
      'message_rejected',
      'smtp_unavailable',
    ],
    openapi: {
      method: 'POST',
      path: '/api/outreach/replies/{id}/reply',
      tags: ['Outreach'],
      summary: 'Answer a reply in its thread',
      description: 'Under the rules of /api/outreach/send. Needs a paid plan.',
    },
  })
  .input(answerReplyInput)
  .output(answerReplyOutput)
  .mutation(async ({ ctx, input }) => ({ message: await answerReply(ctx.principal.workspaceId, input) }));
