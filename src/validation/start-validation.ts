import { startValidationInput, validationJobOutput } from '../../schema/validation.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { startValidation } from './validation.service.ts';

export const startValidationProcedure = apiProcedure
  .meta({
    permission: 'leads:validate',
    successStatus: 202,
    errors: ['not_found', 'validation_credits_exhausted'],
    openapi: {
      method: 'POST',
      path: '/api/leads/validate',
      tags: ['Leads'],
      summary: 'Start an email validation job',
      description:
        "Checks the addresses of the leads in `lead_ids` (up to 5,000) or selected by `filter` (the lead list's filters): syntax, the domain's mail hosts, " +
        'an SMTP conversation that asks the mail server about each address without sending anything, catch-all, role and disposable addresses. ' +
        'Answers 202 with the job at once; poll GET /api/leads/validate/{id}, whose `processed` and `counts` move while it runs. ' +
        'One validation credit per conclusive result; `unknown` and reused results are free. 402 `validation_credits_exhausted` when the workspace has no validation credits and overage is off.',
    },
  })
  .input(startValidationInput)
  .output(validationJobOutput)
  .mutation(async ({ ctx, input }) => ({ job: await startValidation(ctx.principal, input) }));
