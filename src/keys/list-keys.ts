import { noInput } from '../../schema/common.ts';
import { listKeysOutput } from '../../schema/keys.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listKeys } from './keys.service.ts';

export const listKeysProcedure = apiProcedure
  .meta({
    permission: '*',
    openapi: {
      method: 'GET',
      path: '/api/keys',
      tags: ['API keys'],
      summary: "List the workspace's API keys, newest first (never a secret)",
    },
  })
  .input(noInput)
  .output(listKeysOutput)
  .query(async ({ ctx }) => ({ keys: await listKeys(ctx.principal.workspaceId) }));
