import { privacyExportOutput, privacyRequestInput } from '../../schema/privacy.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { exportAddress } from './privacy.service.ts';

export const exportPersonalDataProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: {
      method: 'POST',
      path: '/api/privacy/export',
      tags: ['Privacy'],
      summary: 'Everything held about an email address (GDPR Art. 15)',
      description: 'Audited, without the address.',
    },
  })
  .input(privacyRequestInput)
  .output(privacyExportOutput)
  .mutation(async ({ ctx, input }) => exportAddress(ctx.principal, input.email));
