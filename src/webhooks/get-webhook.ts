import { webhookIdInput, webhookOutput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getWebhook } from './webhooks.service.ts';

export const getWebhookProcedure = apiProcedure
  .meta({ permission: 'read', openapi: { method: 'GET', path: '/api/webhooks/{id}', tags: ['Webhooks'], summary: 'A webhook endpoint' } })
  .input(webhookIdInput)
  .output(webhookOutput)
  .query(async ({ ctx, input }) => ({ webhook: await getWebhook(ctx.principal.workspaceId, input.id) }));
