import { deleteWebhookOutput, webhookIdInput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteWebhook } from './webhooks.service.ts';

export const deleteWebhookProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'DELETE',
      path: '/api/webhooks/{id}',
      tags: ['Webhooks'],
      summary: 'Delete a webhook endpoint (its pending deliveries stop)',
    },
  })
  .input(webhookIdInput)
  .output(deleteWebhookOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteWebhook(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
