import { router } from '../trpc/init.ts';
import { createWebhookProcedure } from './create-webhook.ts';
import { deleteWebhookProcedure } from './delete-webhook.ts';
import { getWebhookProcedure } from './get-webhook.ts';
import { listDeliveriesProcedure } from './list-deliveries.ts';
import { listWebhooksProcedure } from './list-webhooks.ts';
import { retryDeliveryProcedure } from './retry-delivery.ts';
import { testWebhookProcedure } from './test-webhook.ts';
import { updateWebhookProcedure } from './update-webhook.ts';

export const webhooksRouter = router({
  create: createWebhookProcedure,
  list: listWebhooksProcedure,
  get: getWebhookProcedure,
  update: updateWebhookProcedure,
  delete: deleteWebhookProcedure,
  test: testWebhookProcedure,
  deliveries: listDeliveriesProcedure,
  retryDelivery: retryDeliveryProcedure,
});
