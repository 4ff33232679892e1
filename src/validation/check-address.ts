import { checkAddressInput, checkAddressOutput } from '../../schema/email-finder.ts';
import { fromOutput } from '../trpc/init.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { checkAddress } from './address-check.service.ts';

export const checkAddressProcedure = apiProcedure
  .meta({
    permission: 'leads:validate',
    successStatus: fromOutput(checkAddressOutput, (output) => ('result' in output ? 200 : 202)),
    restResponses: {
      200: { description: 'The check finished within 30 s', body: checkAddressOutput.options[0] },
      202: { description: 'Still checking (greylisting, a slow server): poll the validation job', body: checkAddressOutput.options[1] },
    },
    errors: ['validation_credits_exhausted'],
    openapi: {
      method: 'POST',
      path: '/api/leads/validate/address',
      tags: ['Leads'],
      summary: 'Check one email address now',
      description: '200 with the result within 30 s, else 202 with the validation job. 1 credit if conclusive; cached results reused free.',
    },
  })
  .input(checkAddressInput)
  .output(checkAddressOutput)
  .mutation(async ({ ctx, input }) => checkAddress(ctx.principal.workspaceId, input.email));
