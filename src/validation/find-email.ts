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
      summary: "Find a person's email address at a domain",
      description:
        "Tries the usual patterns (first.last, first, flast, …), the domain's pattern learnt from the workspace's validated addresses first, " +
        "asking the domain's mail server about each as validation does (nothing is sent). One validation credit per conclusive lookup; `unknown` is free. " +
        'With `lead_id`, a found address is written to the lead if its email is empty (409 if it has one).',
    },
  })
  .input(findEmailInput)
  .output(findEmailOutput)
  .mutation(async ({ ctx, input }) => findEmail(ctx.principal.workspaceId, input));
