import { deliveriesOutput, listDeliveriesInput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listDeliveries } from './webhooks.service.ts';

export const listDeliveriesProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/webhooks/{id}/deliveries',
      tags: ['Webhooks'],
      summary: 'Deliveries to an endpoint, newest first, with every attempt',
    },
  })
  .input(listDeliveriesInput)
  .output(deliveriesOutput)
  .query(async ({ ctx, input }) => ({ deliveries: await listDeliveries(ctx.principal.workspaceId, input.id, input.limit) }));
