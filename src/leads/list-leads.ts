import { listLeadsInput, listLeadsOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { customFromQuery } from './lead-filter.ts';
import { listLeads } from './leads.service.ts';

export const listLeadsProcedure = apiProcedure
  .meta({
    permission: 'read',
    errors: ['not_found'],
    restInput: customFromQuery,
    openapi: {
      method: 'GET',
      path: '/api/leads',
      tags: ['Leads'],
      summary: 'List and search leads',
      description:
        'Newest first (with updated_after, oldest change first). Archived leads are left out unless status=archived. Page with `cursor` (keyset) or `offset`.',
    },
  })
  .input(listLeadsInput)
  .output(listLeadsOutput)
  .query(({ ctx, input }) => listLeads(ctx.principal, input));
