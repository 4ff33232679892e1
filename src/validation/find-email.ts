import { findEmailInput, findEmailOutput } from '../../schema/email-finder.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { findEmail } from './finder/email-finder.service.ts';

export const findEmailProcedure = apiProcedure
  .meta({
    permission: 'leads:validate',
    errors: ['not_found', 'conflict', 'validation_credits_exhausted'],
    openapi: {
      method: 'POST',
      path: '/api/leads/find-email',
      tags: ['Leads'],
      summary: "Find a person's email address",
      description:
        "Tries the usual patterns, the domain's known one first, asking its mail server (nothing is sent). 1 validation credit if conclusive. " +
        '`lead_id`: a found address is written to the lead if its email is empty.',
    },
  })
  .input(findEmailInput)
  .output(findEmailOutput)
  .mutation(async ({ ctx, input }) => findEmail(ctx.principal.workspaceId, input));
