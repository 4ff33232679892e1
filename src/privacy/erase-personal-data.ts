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
      summary: 'Erase everything held about an email address (GDPR Article 17)',
      description:
        'Deletes every record naming it (statistics keep their counts) and puts it on the do-not-contact list (source `erasure`) ' +
        'so a later import of it is never contacted. Audited (without the address). Asking again is safe.',
    },
  })
  .input(privacyRequestInput)
  .output(privacyEraseOutput)
  .mutation(async ({ ctx, input }) => eraseAddress(ctx.principal, input.email));
