import { deliveryOutput, retryDeliveryInput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { retryDelivery } from './webhooks.service.ts';

export const retryDeliveryProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 202,
    openapi: {
      method: 'POST',
      path: '/api/webhooks/{id}/deliveries/{deliveryId}/retry',
      tags: ['Webhooks'],
      summary: 'Send a delivery again now',
      description: 'As its next attempt, with the same `webhook-id`; answers 202 with the delivery as it was.',
    },
  })
  .input(retryDeliveryInput)
  .output(deliveryOutput)
  .mutation(async ({ ctx, input }) => ({ delivery: await retryDelivery(ctx.principal.workspaceId, input.id, input.deliveryId) }));
