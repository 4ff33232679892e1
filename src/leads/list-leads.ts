import { listLeadsInput, listLeadsOutput } from '../../schema/leads.ts';
import { authorizedProcedure } from '../trpc/procedures.ts';
import { listLeads } from './leads.service.ts';

export const listLeadsProcedure = authorizedProcedure('read')
  .meta({ openapi: { method: 'GET', path: '/api/leads', tags: ['Leads'], summary: 'List and search leads', description: 'Newest first. Archived leads are left out unless status=archived.' } })
  .input(listLeadsInput)
  .output(listLeadsOutput)
  .query(({ ctx, input }) => listLeads(ctx.principal.workspaceId, input));
