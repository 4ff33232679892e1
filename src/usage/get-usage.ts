import { noInput } from '../../schema/common.ts';
import { usageOutput } from '../../schema/usage.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { workspaceUsage } from './usage.service.ts';

export const getUsageProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/usage',
      tags: ['Usage'],
      summary: 'Credits left and spent (the last 30 days, per day), stored leads and active keys against the plan',
      description:
        "Days are in the workspace's time zone, oldest first. Every debit is counted on the day it was taken, in the same write that took it.",
    },
  })
  .input(noInput)
  .output(usageOutput)
  .query(({ ctx }) => workspaceUsage(ctx.principal.workspaceId));
