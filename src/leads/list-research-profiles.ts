import { noInput } from '../../schema/common.ts';
import { listResearchProfilesOutput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listResearchProfiles } from './research-profiles.service.ts';

export const listResearchProfilesProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/leads/research-profiles', tags: ['Leads'], summary: 'Saved searches, newest first' },
  })
  .input(noInput)
  .output(listResearchProfilesOutput)
  .query(async ({ ctx }) => ({ profiles: await listResearchProfiles(ctx.principal.workspaceId) }));
