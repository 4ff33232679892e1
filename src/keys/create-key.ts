import { createKeyInput, createKeyOutput } from '../../schema/keys.ts';
import { AppError } from '../errors/app-error.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { issueKey, issueMemberKey } from './keys.service.ts';

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
      description:
        'Needs an API key with full access (`*`); OAuth tokens cannot manage keys. Each plan allows a number of active keys (free 5, starter 10, pro 25, business 100); past it, 403 `key_limit` with `used` and `limit`. Takes no Idempotency-Key (400): replaying the answer would need the secret, which is never stored.',
    },
  })
  .input(createKeyInput)
  .output(createKeyOutput)
  .mutation(async ({ ctx, input }) => {
    // Refused, not ignored: an idempotent replay would have to keep the secret.
    if (ctx.idempotencyKey !== undefined)
      throw new AppError(
        'validation_failed',
        'Idempotency-Key: not accepted when creating a key (its secret is never stored to answer again)',
        { field: 'Idempotency-Key' },
      );
    return (input.user_id ? issueMemberKey : issueKey)({
      workspaceId: ctx.principal.workspaceId,
      userId: input.user_id ?? ctx.principal.userId,
      name: input.name,
      scopes: input.scopes,
      brandId: input.brand_id ?? null,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
  });
