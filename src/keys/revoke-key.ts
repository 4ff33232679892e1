import { keyIdInput, revokeKeyOutput } from '../../schema/keys.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { revokeKey } from './keys.service.ts';

export const revokeKeyProcedure = apiProcedure
  .meta({
    permission: '*',
    openapi: {
      method: 'DELETE',
      path: '/api/keys/{id}',
      tags: ['API keys'],
      summary: 'Revoke an API key: every surface refuses it from the next request',
    },
  })
  .input(keyIdInput)
  .output(revokeKeyOutput)
  .mutation(async ({ ctx, input }) => ({ key: await revokeKey(ctx.principal.workspaceId, input.id) }));
