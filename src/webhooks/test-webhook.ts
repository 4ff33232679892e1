import { deliveryOutput, webhookIdInput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { testWebhook } from './webhooks.service.ts';

export const testWebhookProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 202,
    openapi: {
      method: 'POST',
      path: '/api/webhooks/{id}/test',
      tags: ['Webhooks'],
      summary: 'Send a `webhook.test` event to this endpoint',
      description: 'Answers 202 with the delivery; follow it in the deliveries list.',
    },
  })
  .input(webhookIdInput)
  .output(deliveryOutput)
  .mutation(async ({ ctx, input }) => ({ delivery: await testWebhook(ctx.principal.workspaceId, input.id) }));
