import { createKeyInput, createKeyOutput } from '../../schema/keys.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { assertKeyManager, issueKey } from './keys.service.ts';

export const createKeyProcedure = apiProcedure
  .meta({
    permission: '*',
    successStatus: 201,
    errors: ['not_found', 'key_limit'],
    openapi: {
      method: 'POST',
      path: '/api/keys',
      tags: ['API keys'],
      summary: 'Create an API key (the secret is in this answer only)',
      description: 'Needs an API key with full access (`*`); OAuth tokens cannot manage keys. Each plan allows a number of active keys (free 5, starter 10, pro 25, business 100); past it, 403 `key_limit` with `used` and `limit`.',
    },
  })
  .input(createKeyInput)
  .output(createKeyOutput)
  .mutation(async ({ ctx, input }) => {
    assertKeyManager(ctx.principal);
    return issueKey({
      workspaceId: ctx.principal.workspaceId,
      userId: ctx.principal.userId,
      name: input.name,
      scopes: input.scopes,
      brandId: input.brand_id ?? null,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
  });
