import { createWebhookInput, createWebhookOutput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createWebhook } from './webhooks.service.ts';

export const createWebhookProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    errors: ['not_found', 'url_not_allowed'],
    openapi: {
      method: 'POST',
      path: '/api/webhooks',
      tags: ['Webhooks'],
      summary: 'Add a webhook endpoint',
      description:
        'Events are POSTed to `url` as Standard Webhooks 1.0 messages (`webhook-id`, `webhook-timestamp`, `webhook-signature` headers; body `{ type, timestamp, data }`), ' +
        "retried with backoff until a 2xx. The signing `secret` is in this answer only. With `campaign_ids`, events naming another campaign are not delivered (404 naming `campaign_ids` for a campaign not the workspace's).",
    },
  })
  .input(createWebhookInput)
  .output(createWebhookOutput)
  .mutation(({ ctx, input }) => createWebhook(ctx.principal.workspaceId, input));
