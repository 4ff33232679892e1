import { noInput } from '../../schema/common.ts';
import { capacityOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { leadCapacity } from './leads.service.ts';

export const getCapacityProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/leads/capacity', tags: ['Leads'], summary: 'Stored leads against the plan cap' },
  })
  .input(noInput)
  .output(capacityOutput)
  .query(({ ctx }) => leadCapacity(ctx.principal.workspaceId));
