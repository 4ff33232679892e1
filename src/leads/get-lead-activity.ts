import { leadActivityInput, leadActivityOutput } from '../../schema/lead-activity.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listLeadActivity } from './lead-activity.service.ts';

export const getLeadActivityProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/leads/{id}/activity',
      tags: ['Leads'],
      summary: "A lead's activity",
    },
  })
  .input(leadActivityInput)
  .output(leadActivityOutput)
  .query(({ ctx, input }) => listLeadActivity(ctx.principal.workspaceId, input));
