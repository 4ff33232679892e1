import { privacyEraseOutput, privacyRequestInput } from '../../schema/privacy.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { eraseAddress } from './privacy.service.ts';

export const erasePersonalDataProcedure = apiProcedure
  .meta({
    permission: '*',
    openapi: {
      method: 'POST',
      path: '/api/privacy/erase',
      tags: ['Privacy'],
      summary: 'Erase an email address everywhere (GDPR Art. 17)',
      description: 'Statistics keep their counts; the address is suppressed (source `erasure`). Audited, without the address.',
    },
  })
  .input(privacyRequestInput)
  .output(privacyEraseOutput)
  .mutation(async ({ ctx, input }) => eraseAddress(ctx.principal, input.email));
