import { researchProfileOutput, saveResearchProfileInput } from '../../schema/leads.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { saveResearchProfile } from './research-profiles.service.ts';

export const saveResearchProfileProcedure = apiProcedure
  .meta({
    permission: 'write',
    errors: ['not_found'],
    openapi: {
      method: 'POST',
      path: '/api/leads/research-profiles',
      tags: ['Leads'],
      summary: 'Store a saved search (research profile) without running it',
      description: 'With `id`, updates that profile in place.',
    },
  })
  .input(saveResearchProfileInput)
  .output(researchProfileOutput)
  .mutation(async ({ ctx, input }) => ({ profile: await saveResearchProfile(ctx.principal.workspaceId, input) }));
