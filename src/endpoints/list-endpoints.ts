import { noInput } from '../../schema/common.ts';
import { listEndpointsOutput } from '../../schema/endpoints.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listEndpoints } from './endpoints.service.ts';

export const listEndpointsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/endpoints',
      tags: ['Published endpoints'],
      summary: 'List published endpoints (an array, newest first)',
    },
  })
  .input(noInput)
  .output(listEndpointsOutput)
  .query(({ ctx }) => listEndpoints(ctx.principal.workspaceId));
