import { noInput } from '../../schema/common.ts';
import { webhooksOutput } from '../../schema/webhooks.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listWebhooks } from './webhooks.service.ts';

export const listWebhooksProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/webhooks', tags: ['Webhooks'], summary: 'List webhook endpoints, newest first' },
  })
  .input(noInput)
  .output(webhooksOutput)
  .query(async ({ ctx }) => ({ webhooks: await listWebhooks(ctx.principal.workspaceId) }));
