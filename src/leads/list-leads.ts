import { listLeadsInput, listLeadsOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listLeads } from './leads.service.ts';

export const listLeadsProcedure = apiProcedure
  .meta({
    permission: 'read',
    errors: ['not_found'],
    openapi: {
      method: 'GET',
      path: '/api/leads',
      tags: ['Leads'],
      summary: 'List and search leads',
      description: 'Newest first. Archived leads are left out unless status=archived.',
    },
  })
  .input(listLeadsInput)
  .output(listLeadsOutput)
  .query(({ ctx, input }) => listLeads(ctx.principal, input));
