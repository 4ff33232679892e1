import { leadIdInput, leadOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getLead } from './leads.service.ts';

export const getLeadProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'GET',
      path: '/api/leads/{id}',
      tags: ['Leads'],
      summary: 'Get one lead',
      description: "Archived leads too. 404 for another workspace's lead.",
    },
  })
  .input(leadIdInput)
  .output(leadOutput)
  .query(async ({ ctx, input }) => ({ lead: await getLead(ctx.principal.workspaceId, input.id) }));
