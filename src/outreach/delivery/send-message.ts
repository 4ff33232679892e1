import { sendMessageInput, sendMessageOutput } from '../../../schema/outreach/send.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { sendOneMessage } from './direct-send.ts';

export const sendMessageProcedure = apiProcedure
  .meta({
    permission: 'outreach:send',
    plan: 'paid',
    planError: 'outreach_locked',
    errors: ['not_found', 'suppressed', 'invalid_email', 'inbox_paused', 'inbox_cap_reached', 'message_rejected', 'smtp_unavailable'],
    openapi: {
      method: 'POST',
      path: '/api/outreach/send',
      tags: ['Outreach'],
      summary: 'Send one message now from an inbox',
      description:
        'Under the campaign rules: nothing to a suppressed address (422 suppressed) or one validated invalid (422 invalid_email), nothing from a paused inbox or over its cap (409). Needs a paid plan.',
    },
  })
  .input(sendMessageInput)
  .output(sendMessageOutput)
  .mutation(async ({ ctx, input }) => ({ message: await sendOneMessage(ctx.principal.workspaceId, input) }));
