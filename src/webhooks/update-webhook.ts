import { updateWebhookInput, updateWebhookOutput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { updateWebhook } from './webhooks.service.ts';

export const updateWebhookProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['not_found', 'url_not_allowed'],
    openapi: {
      method: 'PATCH',
      path: '/api/webhooks/{id}',
      tags: ['Webhooks'],
      summary: 'Change a webhook endpoint, or rotate its secret',
      description:
        'With `rotate_secret: true` the answer carries the new `secret`; the old one keeps signing beside it (two signatures) for 24 hours.',
    },
  })
  .input(updateWebhookInput)
  .output(updateWebhookOutput)
  .mutation(({ ctx, input }) => updateWebhook(ctx.principal.workspaceId, input));
