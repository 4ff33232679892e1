import { noInput } from '../../schema/common.ts';
import { listFieldsOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listFields } from './lead-fields.service.ts';

export const listFieldsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/leads/fields', tags: ['Leads'], summary: 'Custom lead columns in display order' },
  })
  .input(noInput)
  .output(listFieldsOutput)
  .query(async ({ ctx }) => ({ fields: await listFields(ctx.principal.workspaceId) }));
